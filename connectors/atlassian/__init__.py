"""Formats Jira and Confluence share (Atlassian Document Format): either source package may import this one."""

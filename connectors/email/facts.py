"""E-mail's structured facts are the generic mail facts (transforms/mail_facts.py: sender, recipients, thread,
attachments, references, employers), shared with Salesforce's EmailMessage records; an e-mail episode is about its
message thread (no subject function of its own)."""

from transforms.mail_facts import email_facts

__all__ = ["email_facts"]

"""How `graphfeed search` and `graphfeed history` name the episodes a fact cites."""

from pipelines.commands.graph_reads import source_labels

ROLE = "salesforce OpportunityContactRole:00K8d00000RlDwhEAF"


def test_given_two_versions_of_one_record_then_the_record_is_named_once_with_its_count():
    assert source_labels([ROLE, ROLE]) == f"{ROLE} (2 episodes)"


def test_given_distinct_records_then_each_in_order_and_the_rest_counted():
    labels = ["email <a@x>", ROLE, "jira ACME-12", "confluence 4711", "email <a@x>"]
    assert source_labels(labels) == f"email <a@x> (2 episodes), {ROLE}, jira ACME-12 and 1 more"


def test_given_no_episode_then_a_dash():
    assert source_labels([]) == "-"

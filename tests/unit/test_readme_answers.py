"""The answers the README shows are spelled as grpcurl prints them: proto field names
(`ticket_id`), not the JSON mapping's camelCase (`ticketId`)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
KEY = re.compile(r'"([A-Za-z_]+)":')


def test_every_answer_shown_in_the_readme_uses_the_proto_field_names_grpcurl_prints():
    shown = [line for line in README.read_text().splitlines() if line.lstrip().startswith("#  ->")]
    assert shown  # the walkthroughs show answers
    camel = {key for line in shown for key in KEY.findall(line) if re.search(r"[a-z][A-Z]", key)}
    assert camel == set()

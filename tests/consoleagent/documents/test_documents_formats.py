"""The three format readers: UI labels in any emphasis and in menu paths, metadata, tolerated Sphinx
extensions, and clear errors (file and line) for malformed reStructuredText and HTML."""

from __future__ import annotations

from tests import FIXTURES

import pytest

from consoleagent.suite import DOCUMENTS_ROOT
from consoleagent.documents import ProcedureError, load_document, parse_document, parse_procedure, read_metadata

STYLES = FIXTURES / "docs" / "styles"


def test_markdown_labels_in_italic_code_and_quotes_but_not_stressed_words() -> None:
    doc = """# Create a database

## Procedure

1. In the tree, choose `Object > Create > Database`.
2. In the *Database* field, enter `sales`. Do *not* select *Template*.
3. Click "Save" and check the 'Owner' field.
4. Choose **Storage** → **Disks**, then _Create Disk_.
"""
    steps = parse_procedure(doc, "db.md").steps
    assert steps[0].navigation == [["Object", "Create", "Database"]]
    assert steps[0].text == "In the tree, choose **Object** > **Create** > **Database**."
    assert steps[1].ui_labels == ["Database", "Template"]  # "not" is stress, not a label
    assert steps[1].text == "In the **Database** field, enter `sales`. Do not select **Template**."
    assert steps[2].ui_labels == ["Save", "Owner"]
    assert steps[3].navigation == [["Storage", "Disks"]] and steps[3].ui_labels == ["Storage", "Disks", "Create Disk"]


def test_rst_sphinx_roles_are_labels_paths_and_text() -> None:
    doc = """Create a role
=============

Procedure
---------

#. Choose :menuselection:`Object --> Create --> Login/Group Role`.
#. In the :guilabel:`&Name` field, enter ``reporting``. See :ref:`Role dialog <role_dialog>` for the other fields.
#. Click ``Tools > Query Tool`` and press :kbd:`F5`.
"""
    procedure = parse_procedure(doc, "role.rst")
    first, second, third = procedure.steps
    assert first.navigation == [["Object", "Create", "Login/Group Role"]]
    assert second.text == "In the **Name** field, enter `reporting`. See Role dialog for the other fields."
    assert second.ui_labels == ["Name"]
    assert third.navigation == [["Tools", "Query Tool"]] and "`F5`" in third.text
    assert [s.line for s in procedure.steps] == [7, 8, 9]


def test_rst_field_list_is_a_settings_list_and_unknown_roles_are_tolerated() -> None:
    doc = """:id: vpc-quick
:release: 2026.03

Create a VPC quickly
====================

First, log on to the VPC console and click *Create VPC*. Use these settings:

:Name: ``quick-vpc``
:IPv4 CIDR block: 10.8.0.0/16
:Description: Leave this field empty.

Then click :custom-role:`OK`.
"""
    document = parse_document(doc, "quick.rst")
    assert document.front_matter == {"id": "vpc-quick", "release": "2026.03"} and document.id == "vpc-quick"
    assert len(document.warnings) == 1 and document.warnings[0].startswith("quick.rst:13: Unknown interpreted text role")
    procedure = document.procedures[0]
    assert procedure.shape == "prose" and procedure.title == "Create a VPC quickly"
    fill = procedure.steps[1]
    assert [(s.label, s.value.kind, s.value.text) for s in fill.all_inputs()] == [  # type: ignore[union-attr]
        ("Name", "literal", "quick-vpc"), ("IPv4 CIDR block", "literal", "10.8.0.0/16"),
        ("Description", "empty", "Leave this field empty.")]
    assert procedure.steps[-1].line == 13 and procedure.steps[-1].ui_labels == []  # an unknown role is text


def test_malformed_rst_names_file_and_line() -> None:
    path = STYLES / "broken-table.rst"
    with pytest.raises(ProcedureError) as err:
        load_document(path)
    assert err.value.source == str(path) and err.value.line == 14
    assert str(err.value) == f"{path}:14: reStructuredText error: Malformed table. Right border not aligned or missing."
    with pytest.raises(ProcedureError, match=r"^n\.rst:4: reStructuredText error: Content block expected for the \"note\""):
        parse_document("Title\n=====\n\n.. note::\n\nText.\n", "n.rst")


def test_malformed_html_names_file_and_line() -> None:
    path = STYLES / "truncated.html"
    with pytest.raises(ProcedureError) as err:
        load_document(path)
    assert str(err.value) == f"{path}:8: HTML: <ol> is never closed (the page ends inside it; saved incompletely?)"
    with pytest.raises(ProcedureError, match=r"^s\.html:3: HTML: </ol> closes nothing \(no <ol> is open\)$"):
        parse_document("<html><body>\n<h1>T</h1>\n<p>x</p></ol>\n</body></html>", "s.html")
    with pytest.raises(ProcedureError, match=r"^d\.html:3: HTML: <table> opened at line 2 is closed by </div>"):
        parse_document("<div>\n<table><tr><td>x</td></tr>\n</div>", "d.html")
    with pytest.raises(ProcedureError, match=r"^t\.html:1: not an HTML page: no tags$"):
        parse_document("Click OK.", "t.html")


def test_html_dita_and_sphinx_markup_and_implicit_end_tags() -> None:
    page = """<html><head><title>Ignored when there is an h1</title><meta name="product" content="vpc"></head>
<body><div class="document"><div class="body">
<h1>Release an EIP<a class="headerlink" href="#x">¶</a></h1>
<p>An EIP you no longer need can be released.
<h2>Procedure</h2>
<ol>
<li>Choose <span class="menuselection">Elastic IP addresses → Elastic IP addresses</span>.
<li>In the row of the EIP, click <em>Release</em> and then <code>OK</code>.
<div class="admonition warning"><p class="admonition-title">Warning</p><p>A released address cannot be recovered.</p></div>
</ol>
<dl><dt>Name</dt><dd>the EIP's name</dd></dl>
</div></div></body></html>"""
    document = parse_document(page, "eip.html")
    assert document.title == "Release an EIP" and document.front_matter == {"product": "vpc"}
    procedure = document.procedures[0]
    assert procedure.context == "An EIP you no longer need can be released."
    first, second = procedure.steps
    assert first.navigation == [["Elastic IP addresses", "Elastic IP addresses"]] and first.line == 7
    assert second.text == "In the row of the EIP, click **Release** and then `OK`."
    assert second.notes == ["Warning: A released address cannot be recovered."]
    assert read_metadata(next((DOCUMENTS_ROOT / "stratus").glob("*/styles/html-stop-instance.html")))["id"] == \
        "styles-html-stop-instance"


def test_markdown_without_procedure_section_takes_numbered_instructions_anywhere() -> None:
    doc = """# Delete a vSwitch

Deleting a vSwitch frees its CIDR block.

## Delete it

1. Go to the **vSwitches** page.
2. Click **Delete** in the row of the vSwitch.

   | Parameter | Value |
   | --- | --- |
   | Confirm | Keep the default value. |

## Limits

1. A vSwitch with instances cannot be deleted.
"""
    procedure = parse_procedure(doc, "del.md")
    assert procedure.shape == "steps" and [s.text for s in procedure.steps] == [
        "Go to the **vSwitches** page.", "Click **Delete** in the row of the vSwitch."]
    confirm = procedure.steps[1].inputs[0]
    assert (confirm.label, confirm.value.kind, confirm.value.text) == ("Confirm", "default", "")  # type: ignore[union-attr]
    assert procedure.steps[1].fields == []  # nothing to type: the console's default stays


def test_a_page_without_anything_to_do_is_skipped_with_the_headings_it_has() -> None:
    document = parse_document("# Concepts\n\n## Overview\n\nA VPC is a private network.\n", "c.md")
    assert document.procedures == [] and document.skipped == (
        "no 'Procedure' section (section headings found: 'Overview'), and no numbered steps, instructions or field "
        "descriptions")


def test_untrusted_pages_too_large_or_too_deep_are_errors_not_crashes() -> None:
    with pytest.raises(ProcedureError, match=r"^deep\.html:1: nested too deeply to read as html$"):
        parse_document("<div>" * 3000 + "<p>Click <b>OK</b></p>" + "</div>" * 3000, "deep.html")
    with pytest.raises(ProcedureError, match=r"^big\.md:1: 5,000,001 characters: larger than"):
        parse_document("x" * 5_000_001, "big.md")
    # what docutils could read from the file system or pass through as HTML is switched off, and said so
    document = parse_document("Title\n=====\n\n.. include:: /etc/hostname\n\n.. raw:: html\n\n   <script>x</script>\n\n"
                              "Click *OK*.\n", "hostile.rst")
    assert document.warnings == ['hostile.rst:4: "include" directive disabled.', 'hostile.rst:6: "raw" directive disabled.']
    assert document.procedures[0].step_texts() == ["Click **OK**."]

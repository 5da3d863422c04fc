"""pgAdmin 4's own documentation (reStructuredText, copied verbatim with its licence into
tests/fixtures/docs/pgadmin/) read as reference pages: each dialog page becomes "open the dialog (the
page does not say how: the agent must find it), fill the fields it describes, save", and every field
keeps its label, its control, its tab and what the page says to put in it."""

from __future__ import annotations

from tests import FIXTURES, ROOT

from consoleagent.documents import load_document
from consoleagent.documents.instructions import instructions_from

PGADMIN = FIXTURES / "docs" / "pgadmin"


def _fields(procedure) -> list[tuple[str, str | None, str | None]]:
    return [(s.label, s.control, s.group) for step in procedure.steps for s in step.all_inputs()]


def test_the_copies_carry_the_licence() -> None:
    licence = (PGADMIN / "LICENSE").read_text(encoding="utf-8")
    assert "released under the PostgreSQL licence" in licence and "The pgAdmin Development Team" in licence


def test_cast_dialog() -> None:
    document = load_document(PGADMIN / "cast_dialog.rst")
    assert document.title == "Cast Dialog" and document.warnings == []  # :index: and .. image:: are known
    procedure = document.procedures[0]
    assert procedure.shape == "reference" and not procedure.navigation_known
    texts = [s.text for s in procedure.steps]
    assert texts == ["Open the **Cast** dialog.", "Use the fields in the **General** tab to identify the cast:",
                     "Click the **Definition** tab to continue.",
                     "Use the fields in the **Definition** tab to define parameters:",
                     "Click the **SQL** tab to continue.", "Click **Save**."]
    assert procedure.steps[0].find == "Cast dialog" and procedure.steps[-1].synthesized
    assert _fields(procedure) == [("Name", "field", "General"), ("Comment", "field", "General"),
                                  ("Source type", "drop-down listbox", "Definition"),
                                  ("Target type", "drop-down listbox", "Definition"),
                                  ("Function", "drop-down listbox", "Definition"), ("Context", "toggle", "Definition")]
    general, definition = procedure.steps[1], procedure.steps[3]
    name = general.substeps[0].inputs[0]
    assert name.value is not None and name.value.kind == "unspecified"  # "The *Name* field is disabled."
    source = definition.substeps[0].inputs[0]
    assert source.value is not None and (source.value.kind, source.value.text) == (
        "instruction", "select the name of the source data type of the cast")
    context = definition.substeps[3].inputs[0]
    assert context.value is not None and context.value.options == ["Implicit"]
    assert [s.line for s in definition.substeps] == [34, 36, 38, 41]


def test_language_dialog_fields_defaults_and_panels() -> None:
    procedure = load_document(PGADMIN / "language_dialog.rst").procedures[0]
    assert procedure.steps[0].text == "Open the **Language** dialog." and procedure.steps[-1].text == "Click **Save**."
    fields = _fields(procedure)
    assert fields[:3] == [("Name", "drop-down listbox", "General"), ("Owner", "drop-down listbox", "General"),
                          ("Comment", "field", "General")]
    assert ("Grantee", "drop-down listbox", "Privileges") in fields and ("Provider", "field", "Security Labels") in fields
    trusted = next(s for step in procedure.steps for s in step.all_inputs() if s.label == "Trusted?")
    assert trusted.control == "switch" and trusted.value is not None
    assert (trusted.value.kind, trusted.value.text, trusted.value.options) == ("default", "Yes", ["No", "Yes"])
    # the save button is found in the button legend even though the page keeps it under "Example"
    assert procedure.steps[-1].line == 95


def test_server_group_dialog() -> None:
    procedure = load_document(PGADMIN / "server_group_dialog.rst").procedures[0]
    opening, name, save = procedure.steps
    assert opening.find == "Server Group dialog"
    assert [(s.label, s.value.text) for s in name.inputs] == [  # type: ignore[union-attr]
        ("Name", "specify a name that will identify the server group in the pgAdmin tree control")]
    assert save.text == "Click **Save**." and save.line == 18
    # the paragraph after the buttons is about another dialog (Create - Server): not a step of this one
    assert all("Create - Server" not in s.text for s in procedure.steps)


SHIPPED = ROOT / "src" / "consoleagent" / "consoles" / "pgadmin" / "documents"


def test_a_field_introduced_with_its_choices_is_one_field_and_the_dialog_is_opened_first() -> None:
    """"Use the drop-down listbox in the *User* field ...:" followed by "Select *CURRENT_USER* to ...",
    "Select *PUBLIC* if ...": the list is the field's choices, not steps (before: three "click" steps and no
    step that opens the dialog)."""
    procedure = load_document(SHIPPED / "user_mapping_dialog.rst").procedures[0]
    assert procedure.steps[0].text == "Open the **User Mapping** dialog." and procedure.steps[0].find
    user = procedure.steps[1].inputs[0]
    assert (user.label, user.control) == ("User", "drop-down listbox")
    assert user.value is not None and user.value.options == ["CURRENT_USER", "PUBLIC"]
    assert not any(s.text.startswith("Select **PUBLIC**") for s in procedure.steps)


def test_choices_with_their_own_fields_keep_them_as_fill_steps() -> None:
    """"Select a button next to *Maintenance operation* ...:" then "Click *VACUUM* to ..." with the switches
    VACUUM shows nested under it: one choice field, then a fill step per choice."""
    procedure = load_document(SHIPPED / "maintenance_dialog.rst").procedures[0]
    texts = [s.text for s in procedure.steps]
    assert texts[0] == "Open the **Maintenance** dialog."
    operation = procedure.steps[1].inputs[0]
    assert operation.label == "Maintenance operation" and operation.value is not None
    assert operation.value.options == ["VACUUM", "ANALYZE", "REINDEX", "CLUSTER"]
    # the step says each choice and what it is for, as the page does, so that its reader can pick one by either
    assert texts[1] == ("Select a button next to **Maintenance operation** to specify the type of maintenance: "
                        "**VACUUM** to scan the selected database or table to reclaim storage used by dead tuples, "
                        "**ANALYZE** to update the stored statistics used by the query planner, **REINDEX** to rebuild "
                        "any index in case it has degenerated due to the insertion of unusual data patterns, or "
                        "**CLUSTER** to instruct PostgreSQL to cluster the selected table.")
    [click] = instructions_from(texts[1])
    assert (click.kind, click.options) == ("click", ["VACUUM", "ANALYZE", "REINDEX", "CLUSTER"])
    assert "Fill in the fields of **VACUUM**." in texts and "Fill in the fields of **REINDEX**." in texts
    vacuum = procedure.steps[texts.index("Fill in the fields of **VACUUM**.")]
    assert [s.label for s in vacuum.all_inputs()][:3] == ["FULL", "FREEZE", "ANALYZE"]
    assert texts[-1].startswith("When you've completed the dialog, click **OK**")


def test_a_field_clicked_inside_is_a_field_with_the_choices_its_sentence_lists() -> None:
    """"Click inside the *Event* field to select the type of event ...; event may be *Select*, *Insert*, *Update*,
    or *Delete*." describes a field (before: read as a click only, so the rule was saved with its default event)."""
    procedure = load_document(SHIPPED / "rule_dialog.rst").procedures[0]
    event = next(s for step in procedure.steps for s in step.all_inputs() if s.label == "Event")
    assert event.control == "field" and event.value is not None
    assert event.value.options == ["Select", "Insert", "Update", "Delete"]
    definition = next(t for t in procedure.step_texts() if "**Event**" in t)
    assert [(i.kind, i.target, i.options) for i in instructions_from(definition)][0] == (
        "choose", "Event", ["Select", "Insert", "Update", "Delete"])


def test_a_fields_choices_listed_under_it_stay_in_its_step_text() -> None:
    """"Use the drop-down listbox next to *Access method* to specify the type of index ...:" over a nested list
    "Select *gist* to specify a GiST index." ...: the reader of the step's text gets the four choices as the
    field's options (before: the nested list was left out of the text, so the goal's "using gist" chose nothing)."""
    texts = load_document(SHIPPED / "exclusion_constraint_dialog.rst").procedures[0].step_texts()
    definition = next(t for t in texts if "**Access method**" in t)
    assert "exclusion constraint: **gist**, **spgist**, **btree**, or **hash**.\n" in definition
    method = next(i for i in instructions_from(definition) if i.target == "Access method")
    assert (method.kind, method.options) == ("choose", ["gist", "spgist", "btree", "hash"])
    assert not any(i.kind == "click" for i in instructions_from(definition))  # the choices are not clicks

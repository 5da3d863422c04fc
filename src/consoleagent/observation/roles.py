"""Which marked roles are fields, and of which kind: the vocabulary the agents, the candidate builder and
verification share when they ask "is this something to type into, choose from or toggle?"."""

from __future__ import annotations

TEXT_ROLES = frozenset({"textbox", "searchbox", "spinbutton", "textarea"})
CHOICE_ROLES = frozenset({"combobox", "listbox"})
TOGGLE_ROLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})
FIELD_ROLES = TEXT_ROLES | CHOICE_ROLES | TOGGLE_ROLES | {"slider"}

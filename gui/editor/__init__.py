"""The linguist's item & rules editor: fields, rule lists with a live preview, scope flips, undo and history."""

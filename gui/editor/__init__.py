"""The item editor: rules, live preview, scope flips, undo, history (gui-editor)."""

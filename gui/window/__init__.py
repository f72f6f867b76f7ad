"""The main window's parts, each a mixin of ``gui.main_window.MainWindow``: its menus, its files (databases,
suites, imports, exports), its undo steps and its status bar. The window itself builds the screens and wires them."""

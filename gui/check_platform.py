"""Can Qt open a window here? Run by ``make run`` before the GUI, so a fresh system gets a fix, not an abort.

PySide6's wheel brings Qt but not the X11 libraries its xcb platform plugin loads; a fresh Debian or Ubuntu
desktop lacks some of them (libxcb-cursor0 above all), and Qt then aborts with a message about plugins. This
script asks ``ldd`` which of the plugin's libraries are missing, installs their packages when it runs as root
with apt-get, and otherwise prints the one command that would. ``--xvfb`` also wants Xvfb (for ``make smoke``);
``--walkthrough`` also xdotool and ImageMagick, which the real-window tests (``tests/gui/test_real_window.py``)
drive the window and grab the screen with (``make test`` runs it first).
"""
from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import PySide6

PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libSM.so.6": "libsm6",
    "libICE.so.6": "libice6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
}


def xcb_plugin() -> Path:
    return Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"


def missing_libraries(plugin: Path) -> list[str]:
    result = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=False)
    return sorted({line.split("=>")[0].strip() for line in result.stdout.splitlines() if "not found" in line})


WALKTHROUGH_TOOLS = {"xdotool": "xdotool", "import": "imagemagick"}
"""Programs the real-window tests run, and their Debian packages."""


def needed_packages(xvfb: bool, walkthrough: bool = False) -> tuple[list[str], list[str]]:
    """Debian packages to install, and libraries no known package provides."""
    missing = missing_libraries(xcb_plugin()) if shutil.which("ldd") else []
    packages = sorted({PACKAGES[lib] for lib in missing if lib in PACKAGES})
    unknown = [lib for lib in missing if lib not in PACKAGES]
    if (xvfb or walkthrough) and shutil.which("xvfb-run") is None:
        packages += ["xvfb", "xauth"]
    if walkthrough:
        packages += [package for tool, package in WALKTHROUGH_TOOLS.items() if shutil.which(tool) is None]
    return packages, unknown


def install_command(packages: list[str]) -> list[str]:
    return ["apt-get", "install", "-y", "--no-install-recommends", *packages]


def fix_message(packages: list[str]) -> str:
    """The one fix printed for a user who cannot install as root (``make run`` and ``tsqe-gui`` alike)."""
    return ("check_platform: Qt needs system libraries that are missing; install them with:\n"
            f"    sudo {' '.join(install_command(packages))}")


def window_system_problem() -> str | None:
    """What keeps Qt's xcb plugin from loading, with its fix, or None when it loads (or Qt is asked for another
    platform, e.g. ``offscreen``).

    Asked by ``tsqe-gui`` before it starts Qt, which would otherwise abort the process with its raw message about
    plugins. Loading the plugin is what Qt does first anyway, so it costs the start next to nothing; ``ldd`` is
    asked which libraries are missing only when it fails.
    """
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if not sys.platform.startswith("linux") or platform.split(":")[0] not in ("", "xcb") \
            or (not platform and os.environ.get("WAYLAND_DISPLAY")):
        return None
    try:
        ctypes.CDLL(str(xcb_plugin()))
    except OSError as error:
        packages, unknown = needed_packages(False)
        if packages:
            return fix_message(packages)
        return (f"check_platform: Qt's xcb plugin does not load ({error})"
                + (f"; install what provides {', '.join(unknown)}" if unknown else ""))
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xvfb", action="store_true", help="also need xvfb-run (for the smoke test)")
    parser.add_argument("--walkthrough", action="store_true",
                        help="also need Xvfb, xdotool and ImageMagick (for the real-window tests)")
    args = parser.parse_args(argv)
    if not sys.platform.startswith("linux"):
        return 0
    packages, unknown = needed_packages(args.xvfb, args.walkthrough)
    if unknown:
        print(f"check_platform: Qt's xcb plugin also misses {', '.join(unknown)}; install what provides them")
    if not packages:
        return 1 if unknown else 0
    command = install_command(packages)
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"check_platform: installing {' '.join(packages)} (Qt's window system libraries)")
        if subprocess.run(command, check=False).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], check=False)
            if subprocess.run(command, check=False).returncode != 0:
                print(f"check_platform: could not install; try: {' '.join(command)}")
                return 1
        return 0 if not needed_packages(args.xvfb, args.walkthrough)[0] else 1
    print(fix_message(packages))
    return 1


if __name__ == "__main__":
    sys.exit(main())

"""The repository, the instar binary, running commands, scratch folders."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent

# Where `swift build` puts the binary, relative to REPO: the first that exists is the default.
DEBUG_BUILDS = (".build/debug/instar",)
RELEASE_BUILDS = (".build-release/release/instar", ".build/release/instar")
ANY_BUILD = RELEASE_BUILDS + DEBUG_BUILDS


def log(message=""):
    """Progress and errors go to stderr (stdout carries the report)."""
    print(message, file=sys.stderr, flush=True)


def find_binary(explicit=None, builds=DEBUG_BUILDS, env="INSTAR"):
    """The binary to run: `explicit` (a command-line option), else $env, else the first of `builds` under the
    repository that exists (else the first of them, for the error message). An absolute path, as a string."""
    if explicit:
        path = Path(explicit)
    elif os.environ.get(env):
        path = Path(os.environ[env])
    else:
        path = next((REPO / b for b in builds if (REPO / b).is_file()), REPO / builds[0])
    return str(path.expanduser().absolute())


def require_binary(explicit=None, builds=DEBUG_BUILDS, env="INSTAR", option="--instar"):
    """find_binary, or exit 2 (bad setup) saying how to build it or point at one. The scripts never build."""
    path = find_binary(explicit, builds, env)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        build = ("swift build -c release --scratch-path .build-release" if "release" in builds[0] else "swift build")
        log(f"error: no binary at {path}\n"
            f"       build it first (this script never builds: cd {REPO} && {build}),\n"
            f"       or pass {option} PATH / set {env}")
        sys.exit(2)
    return path


def run(command, *, timeout=None, env=None, cwd=None, input=None, text=True, **options):
    """subprocess.run with the output captured and stdin closed (or `input`). A timeout kills the process and
    gives returncode "timeout" (with what it had written) instead of raising."""
    command = [str(a) for a in command]
    try:
        return subprocess.run(command, capture_output=True, text=text, errors="replace" if text else None,
                              timeout=timeout, env=env, cwd=cwd, input=input,
                              stdin=subprocess.DEVNULL if input is None else None, **options)
    except subprocess.TimeoutExpired as expired:
        def partial(data):
            if text and isinstance(data, bytes):
                return data.decode("utf-8", "replace")
            return data or ("" if text else b"")
        note = f"timed out after {timeout} s"
        stderr = partial(expired.stderr)
        return subprocess.CompletedProcess(command, "timeout", partial(expired.stdout),
                                           stderr + (("\n" + note) if text else b""))


def describe_exit(done):
    """How a run ended, in words: `exit 1`, `killed by SIGKILL`, `timed out`."""
    if done.returncode == "timeout":
        return "timed out"
    if isinstance(done.returncode, int) and done.returncode < 0:
        try:
            return f"killed by {signal.Signals(-done.returncode).name}"
        except ValueError:
            return f"killed by signal {-done.returncode}"
    return f"exit {done.returncode}"


def output_tail(done, lines=6):
    """The last lines of a run's stderr and stdout, indented for a failure report."""
    text = ((done.stderr or "") + (done.stdout or "")).strip().splitlines()
    return "\n".join("      | " + line for line in text[-lines:])


def tmpfs_with_room(free=4 << 30):
    """/dev/shm when it is writable with `free` bytes, else None (the system's temporary folder). Stores that
    are killed but not the machine need no disk: the page cache survives a SIGKILL, fsync buys nothing,
    and runs take about half the time."""
    shm = Path("/dev/shm")
    try:
        if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > free:
            return str(shm)
    except OSError:
        pass
    return None


def scratch_folder(prefix, free=4 << 30):
    """A new temporary folder, on tmpfs when it has room (see tmpfs_with_room)."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=tmpfs_with_room(free)))

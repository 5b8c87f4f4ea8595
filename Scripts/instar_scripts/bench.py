"""Measuring runs, their order, and the tables the benchmarks print."""

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .common import tmpfs_with_room

TIME = "/usr/bin/time"


def measure(command, stdin=None, check=False, watch=()):
    """Runs a command to its end and measures it:

      wall         seconds, time.perf_counter around the process
      user, sys    CPU seconds (wait4's rusage, what /usr/bin/time reports); cpu = user + sys
      rss          maximum resident set, MiB
      fs_out       file system outputs in 512-byte blocks (ru_oublock, /usr/bin/time's "File system outputs")
      wchar        bytes handed to write(2) (database and journal), from /proc/<pid>/io, read after the
                   process exits but before it is reaped; None where /proc has no io file
      write_bytes  bytes the kernel accounted to the block layer for it (page cache pages it dirtied)

      peak_watched the largest size seen of any file in `watch` (paths; sampled every 5 ms while the
                   command runs, so a file that lives less than that may be missed): a store's -journal
                   or -wal, say; None without `watch`

    plus returncode, stdout and stderr (text). `stdin` is None (no input), a Path (that file) or a string.
    With `check`, a run that fails ends the script (exit 1) with its output.

    The command runs under `/usr/bin/time -f %M` when there is one: Linux counts a process's peak RSS
    from before its exec, so a command forked from this Python process would report at least Python's
    own peak (after generating a large store: hundreds of MB); /usr/bin/time is small and reports the
    command's own. Its CPU seconds, block and /proc/<pid>/io figures include the command's, which it
    has reaped, and time's own (a millisecond, a line written to tmpfs). Without /usr/bin/time the
    command is the child, and rss is at least this process's peak (rss_floor says so)."""
    command = [str(a) for a in command]
    time_file, wrapped = None, command
    if os.access(TIME, os.X_OK):
        handle, time_file = tempfile.mkstemp(prefix="instar-measure-", dir=tmpfs_with_room(1 << 20))
        os.close(handle)
        wrapped = [TIME, "-f", "%M", "-o", time_file] + command
    stdin_file = open(stdin, "rb") if isinstance(stdin, Path) else None
    start = time.perf_counter()
    child = subprocess.Popen(wrapped, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=stdin_file or (subprocess.PIPE if isinstance(stdin, str) else subprocess.DEVNULL))
    output = {}

    def drain(name, stream):
        output[name] = stream.read()

    threads = [threading.Thread(target=drain, args=("stderr", child.stderr))]
    if isinstance(stdin, str):
        def feed():
            try:
                child.stdin.write(stdin.encode())
                child.stdin.close()
            except BrokenPipeError:
                pass
        threads.append(threading.Thread(target=feed))
    peak = [0]
    running = threading.Event()
    running.set()

    def sample():
        while running.is_set():
            for path in watch:
                try:
                    peak[0] = max(peak[0], os.stat(path).st_size)
                except OSError:
                    pass
            time.sleep(0.005)

    if watch:
        threads.append(threading.Thread(target=sample, daemon=True))
    for thread in threads:
        thread.start()
    output["stdout"] = child.stdout.read()  # until the child closes it (at exit)
    running.clear()
    for thread in threads:
        thread.join()
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: /proc/<pid> is still there
    wall = time.perf_counter() - start
    try:
        io = dict(line.split(": ") for line in Path(f"/proc/{child.pid}/io").read_text().splitlines())
    except OSError:
        io = {}
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    child.stdout.close()
    child.stderr.close()
    if stdin_file:
        stdin_file.close()
    rss_kb, rss_floor = usage.ru_maxrss, True
    if time_file:
        lines = Path(time_file).read_text().split()
        os.unlink(time_file)
        if lines and lines[-1].isdigit():
            rss_kb, rss_floor = int(lines[-1]), False
    result = {"wall": wall, "user": usage.ru_utime, "sys": usage.ru_stime, "cpu": usage.ru_utime + usage.ru_stime,
              "rss": rss_kb / 1024, "rss_floor": rss_floor, "fs_out": usage.ru_oublock,
              "wchar": int(io["wchar"]) if "wchar" in io else None,
              "write_bytes": int(io["write_bytes"]) if "write_bytes" in io else None,
              "peak_watched": peak[0] if watch else None,
              "returncode": child.returncode, "stdout": output["stdout"].decode("utf-8", "replace"),
              "stderr": output["stderr"].decode("utf-8", "replace")}
    if check and result["returncode"] != 0:
        sys.exit(f"error: {' '.join(command)} failed ({result['returncode']}):\n{result['stdout']}{result['stderr']}")
    return result


def round_robin(names, repeat):
    """(repetition, name) for `repeat` rounds over `names`, the first name rotating with every round, so
    that no implementation always runs first (or right after a given other one)."""
    for repetition in range(repeat):
        shift = repetition % len(names)
        for name in names[shift:] + names[:shift]:
            yield repetition, name


def markdown_table(header, rows, left=1):
    """A Markdown table: the first `left` columns left-aligned, the others (figures) right-aligned."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i < left else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)

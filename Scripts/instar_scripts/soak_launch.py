"""Launches that Scripts/soak races: processes started a few ms apart, killed at chosen moments, reaped
at once or left as zombies, each with what it was asked for and where the store stood when it exited.

A trial's launches are watched by one loop (Trial.watch) that polls every running process, SIGKILLs
those whose moment has come, and leaves a killed launch marked `zombie` unreaped (so its pid still
answers kill(pid, 0)) until the trial says so (Trial.reap_zombies). Nothing here judges: the checks
read the launches afterwards.
"""

import os
import signal
import sqlite3
import subprocess
import time
import urllib.parse

from . import soak_plan

# Documented exit codes. `instar migrate`: 0 done, 2 another migration holds the store (or --wait ran
# out), 75 stopped by --time-budget (1 failed: never expected here; 130/143 only after SIGINT/SIGTERM,
# which the soak does not send). InstarChaos: 0 reached the target, 2 held, 3 not finished in its rounds.
DOCUMENTED = {"cli": {0, 2, 75}, "chaos": {0, 2, 3}}


def process_state(pid):
    """The kernel's state letter for pid (R, S, Z…), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


class Launch:
    """One process of a trial: its command, what it was asked to reach, and how it ended."""

    def __init__(self, trial, name, argv, kind, target, wait=None, kill_after=None, zombie=False):
        self.trial, self.name, self.argv, self.kind, self.target = trial, name, argv, kind, target
        self.wait, self.kill_after, self.zombie = wait, kill_after, zombie
        self.code = None            # exit code (negative: signal), None while running or unreaped
        self.killed = False         # we sent SIGKILL while it ran
        self.version_at_exit = None  # the store's committed version when we saw it end
        self.others_alive = None    # names of the trial's other launches alive when it ended
        self.ended = None           # seconds after the trial's start
        self.out = trial.folder / f"{name}.out"
        self.started = time.monotonic() - trial.t0
        with open(self.out, "wb") as sink:
            self.process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        trial.note(f"{self.started:7.3f} {name}: {self.display()}")

    def display(self):
        """The command as a reader would type it, the scratch paths shortened."""
        words = []
        for word in self.argv:
            word = str(word)
            if "/" in word:
                word = word.rsplit("/", 1)[1]
            words.append(word)
        return " ".join(words)

    @property
    def running(self):
        return self.code is None and not (self.killed and self.zombie)

    @property
    def alive(self):
        """Whether it can still be doing work: running, not killed."""
        return self.code is None and not self.killed

    def output(self, lines=4):
        try:
            text = self.out.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(line.strip() for line in text[:lines])  # the error first, its hints after


class Trial:
    """A trial's scratch folder, store, layout names, launches and the log of what happened."""

    def __init__(self, folder, store, names):
        self.folder, self.store, self.names = folder, store, names
        self.t0 = time.monotonic()
        self.launches = []
        self.events = []

    def note(self, text):
        self.events.append(text)

    def now(self):
        return time.monotonic() - self.t0

    def start(self, *args, **options):
        launch = Launch(self, *args, **options)
        self.launches.append(launch)
        return launch

    def version(self):
        """The store's committed version (read-only, retried while a writer holds it), or an error text."""
        for attempt in range(50):
            try:
                db = sqlite3.connect(f"file:{urllib.parse.quote(str(self.store))}?mode=ro", uri=True, timeout=5)
                try:
                    return soak_plan.version_of(db, self.names)
                finally:
                    db.close()
            except sqlite3.Error as error:
                last = error
                time.sleep(0.01)
        return f"unreadable ({last})"

    def watch(self, timeout=180):
        """Polls the running launches until none runs: SIGKILLs those whose kill_after has come (a zombie
        launch is then left unreaped), records each exit with the store's version at that moment.
        Returns False when a launch hung past `timeout` (it is killed)."""
        deadline = time.monotonic() + timeout
        while any(l.running for l in self.launches):
            for launch in self.launches:
                if not launch.running:
                    continue
                if launch.kill_after is not None and self.now() >= launch.started + launch.kill_after:
                    launch.kill_after = None
                    if launch.process.poll() is None:
                        launch.process.send_signal(signal.SIGKILL)
                        launch.killed = True
                        self.note(f"{self.now():7.3f} {launch.name}: SIGKILL" + (" (left unreaped)" if launch.zombie else ""))
                        if not launch.zombie:
                            launch.process.wait()
                            self.ended(launch)
                        continue
                if launch.process.poll() is not None:
                    self.ended(launch)
            if time.monotonic() > deadline:
                for launch in self.launches:
                    if launch.running:
                        launch.process.kill()
                        launch.process.wait()
                        self.ended(launch)
                        self.note(f"{self.now():7.3f} {launch.name}: hung, killed after {timeout} s")
                return False
            time.sleep(0.002)
        return True

    def ended(self, launch):
        launch.code = launch.process.returncode
        launch.ended = self.now()
        launch.others_alive = [l.name for l in self.launches if l is not launch and l.alive]
        launch.version_at_exit = self.version()
        how = f"exit {launch.code}" if launch.code >= 0 else f"killed by {signal.Signals(-launch.code).name}"
        self.note(f"{launch.ended:7.3f} {launch.name}: {how}, store at {launch.version_at_exit}"
                  + (f"; {launch.output(2)}" if launch.code not in (0, -9) else ""))

    def zombies(self):
        """Killed launches left unreaped, whose pid the kernel shows as a zombie."""
        return [l for l in self.launches if l.killed and l.zombie and l.code is None
                and process_state(l.process.pid) == "Z"]

    def reap_zombies(self):
        for launch in self.launches:
            if launch.killed and launch.zombie and launch.code is None:
                launch.process.wait()
                launch.code = launch.process.returncode
                self.note(f"{self.now():7.3f} {launch.name}: reaped ({launch.code})")

    def kill_everything(self):
        for launch in self.launches:
            if launch.code is None:
                try:
                    launch.process.kill()
                except OSError:
                    pass
                launch.process.wait()
                launch.code = launch.process.returncode

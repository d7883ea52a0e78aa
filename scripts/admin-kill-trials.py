#!/usr/bin/env python3
"""SIGKILL trials over ubiq's admin commands (Docs/Lifecycle.md, "A command killed midway").

Each trial makes a cloud with two devices that saved and synced, starts one admin command on
the first device, kills it with SIGKILL at a random moment of its run (each command's first
trial runs it to the end to learn how long it takes), runs what a user would run next, and checks that no acknowledged save is lost (an ID
that `ubiq soak` printed is on every device), that the devices converge, that a save made after
the recovery reaches the other device, and that doctor finds no transaction written twice.

    scripts/admin-kill-trials.py --ubiq .build/release/ubiq --trials 500 --seed 1

Seeded: trial N of seed S draws the same command and delay on every run. A failed trial keeps
its folder and prints how to look at it; the exit status is 1 when any trial failed.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

COMMANDS = ["encryption-enable", "change-passphrase", "model-migrate", "first-sync-after-sign-in",
            "remove-content", "rebuild", "migrate-from-local"]
LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "models", "Library.xcdatamodeld")
CALL_TIMEOUT = 120


class TrialFailure(Exception):
    pass


class Trial:
    def __init__(self, ubiq, root, rng, command):
        self.ubiq, self.root, self.rng, self.command = ubiq, root, rng, command
        self.cloud = os.path.join(root, "cloud")
        self.acknowledged = set()
        self.model = []          # --model/--content for every call (the model-migrate trials)
        self.environment = {}    # passphrases handed to the recovery's calls
        with open(os.path.join(root, "pw1"), "w") as f:
            f.write("first passphrase\n")
        with open(os.path.join(root, "pw2"), "w") as f:
            f.write("second passphrase\n")

    def device(self, name):
        return os.path.join(self.root, name)

    def arguments(self, name, args):
        return [self.ubiq] + args + ["--device", self.device(name), "--cloud", self.cloud] + self.model

    def run(self, name, args, check=True, environment=None):
        env = dict(os.environ, **self.environment, **(environment or {}))
        result = subprocess.run(self.arguments(name, args), capture_output=True, text=True, timeout=CALL_TIMEOUT, env=env)
        if check and result.returncode != 0:
            raise TrialFailure(f"'{' '.join(args)}' on {name} exited {result.returncode}: {result.stderr.strip()[-600:]}")
        return result

    def soak(self, name, count, prefix):
        out = self.run(name, ["soak", "--count", str(count), "--prefix", prefix] + self.entity()).stdout
        self.acknowledged.update(line.strip() for line in out.splitlines() if line.strip())

    def entity(self):
        return ["--entity", "Shelf"] if self.model else []

    def ids(self, name):
        dump = json.loads(self.run(name, ["dump", "--json"]).stdout)
        objects = dump if isinstance(dump, list) else dump.get("objects", [])
        return [o.get("id") or o.get("globalID") for o in objects]

    def killed(self, name, args, duration):
        """Starts `args` on `name` and kills it at a moment drawn from its whole run (`duration`:
        how long it took when let run; `None`: let it run and measure). Returns whether it was
        killed while running, and how long it ran."""
        env = dict(os.environ, **self.environment)
        start = time.monotonic()
        process = subprocess.Popen(self.arguments(name, args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env=env, start_new_session=True)
        deadline = start + (self.rng.uniform(0, duration) if duration else CALL_TIMEOUT)
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        running = process.poll() is None
        if running:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=CALL_TIMEOUT)
        return running, time.monotonic() - start

    # The trials: setup, the killed command, and what a user runs next.

    def prepare(self):
        if self.command == "model-migrate":
            self.model = ["--model", os.path.join(LIBRARY, "Library.xcdatamodel"), "--content", "Library"]
        signed_out = ["--signed-out"] if self.command == "migrate-from-local" else []
        self.run("a", ["device", "init", "--user", "ann"] + signed_out)
        self.run("b", ["device", "init", "--user", "bob"])
        self.soak("a", 8, "a-")
        if self.command == "migrate-from-local":
            self.run("a", ["account", "sign-in", "default"])
            self.run("a", ["sync"])
            self.soak("b", 3, "b-")
        self.run("a", ["sync"])
        self.run("b", ["sync"])
        if self.command == "change-passphrase":
            self.run("a", ["encryption", "enable", "--passphrase-file", self.device("pw1"), "--scrypt-log-n", "10"])
            self.environment = {"UBIQUITY_PASSPHRASE": "first passphrase"}
            self.run("b", ["sync"])
        if self.command == "first-sync-after-sign-in":
            self.run("a", ["account", "sign-out"])
            self.soak("b", 4, "b-")
            self.run("b", ["sync"])
            self.run("a", ["account", "sign-in", "default"])

    def killed_command(self):
        return {
            "encryption-enable": ["encryption", "enable", "--passphrase-file", self.device("pw1"), "--scrypt-log-n", "10"],
            "change-passphrase": ["encryption", "change-passphrase", "--passphrase-file", self.device("pw1"),
                                  "--new-passphrase-file", self.device("pw2"), "--scrypt-log-n", "10"],
            "model-migrate": ["model", "migrate", "--to", LIBRARY],
            "first-sync-after-sign-in": ["sync"],
            "remove-content": ["remove-content", "--yes"],
            "rebuild": ["rebuild"],
            "migrate-from-local": ["migrate", "--from-local"],
        }[self.command]

    def recover(self):
        """What a user runs after the crash: the command again where it is meant to be rerun."""
        if self.command == "encryption-enable":
            status = self.run("a", ["encryption", "status"], check=False).stdout
            if "not encrypted" in status:
                self.run("a", self.killed_command())
            self.environment = {"UBIQUITY_PASSPHRASE": "first passphrase"}
        elif self.command == "change-passphrase":
            # Either passphrase may hold now; the rerun moves it to the second if it is not yet.
            self.run("a", self.killed_command(), check=False)
            self.environment = {"UBIQUITY_PASSPHRASE": "second passphrase"}
        elif self.command == "model-migrate":
            self.run("a", self.killed_command())
            self.model = ["--model", LIBRARY, "--content", "Library"]
            self.run("b", ["model", "migrate", "--to", LIBRARY])
        elif self.command == "remove-content":
            self.run("a", self.killed_command())
        elif self.command == "migrate-from-local":
            self.run("a", self.killed_command())
        for _ in range(2):
            self.run("a", ["sync"])
            self.run("b", ["sync"])

    def check(self):
        if self.command == "remove-content":
            self.acknowledged = set()   # the removal, once rerun, is what the user asked for
        a, b = self.ids("a"), self.ids("b")
        for name, ids in (("a", a), ("b", b)):
            lost = self.acknowledged - set(ids)
            if lost:
                raise TrialFailure(f"{len(lost)} acknowledged save(s) missing on {name}: {sorted(lost)[:5]}")
            if len(ids) != len(set(ids)):
                raise TrialFailure(f"{name} holds an object twice")
        if sorted(a) != sorted(b):
            raise TrialFailure(f"the devices differ: a has {len(a)} objects, b {len(b)}")
        # A save after the recovery reaches the other device.
        self.soak("a", 2, "after-")
        self.run("a", ["sync"])
        self.run("b", ["sync"])
        missing = {i for i in self.acknowledged if "after-" in i} - set(self.ids("b"))
        if missing:
            raise TrialFailure(f"a save after the recovery did not reach b: {sorted(missing)}")
        doctor = self.run("a", ["doctor"], check=False)
        if "written twice" in doctor.stdout or "written twice" in doctor.stderr:
            raise TrialFailure("doctor: a transaction was written twice")
        if self.command == "change-passphrase":
            # A new device opens the content with the second passphrase and gets everything.
            self.run("c", ["device", "init", "--user", "cid"])
            self.run("c", ["sync"])
            lost = self.acknowledged - set(self.ids("c"))
            if lost:
                raise TrialFailure(f"a new device with the new passphrase lacks {sorted(lost)[:5]}")


def main():
    parser = argparse.ArgumentParser(description="SIGKILL trials over ubiq's admin commands.")
    parser.add_argument("--ubiq", required=True, help="the ubiq binary (a release build is several times faster)")
    parser.add_argument("--trials", type=int, default=70)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=COMMANDS, help="one command's trials only")
    options = parser.parse_args()
    ubiq = os.path.abspath(options.ubiq)
    base = tempfile.mkdtemp(prefix="ubiq-kill-trials-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    tally = {command: {"trials": 0, "killed": 0, "failed": 0} for command in COMMANDS}
    # Each command's first trial runs it to the end: the later ones are killed within that time.
    durations = {}
    failures = []
    started = time.monotonic()
    for index in range(options.trials):
        rng = random.Random(options.seed * 1_000_003 + index)
        command = options.only or COMMANDS[index % len(COMMANDS)]
        root = os.path.join(base, f"trial-{index}")
        os.makedirs(root)
        trial = Trial(ubiq, root, rng, command)
        tally[command]["trials"] += 1
        try:
            trial.prepare()
            running, took = trial.killed("a", trial.killed_command(), durations.get(command))
            durations.setdefault(command, took)
            if running:
                tally[command]["killed"] += 1
            trial.recover()
            trial.check()
            shutil.rmtree(root)
        except (TrialFailure, subprocess.TimeoutExpired) as error:
            tally[command]["failed"] += 1
            failures.append(f"trial {index} ({command}), seed {options.seed}: {error}  [kept: {root}]")
            print(failures[-1], file=sys.stderr, flush=True)
        if (index + 1) % 50 == 0:
            print(f"{index + 1} trials, {len(failures)} failed, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    for command, counts in tally.items():
        if counts["trials"]:
            print(f"{command}: {counts['trials']} trials, {counts['killed']} killed while running, {counts['failed']} failed")
    print(f"{options.trials} trials in {time.monotonic() - started:.0f} s: {options.trials - len(failures)} passed, {len(failures)} failed")
    if not failures:
        shutil.rmtree(base, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

"""Flower's deployment engine on the loopback interface: ``boxcoxstat federated-demo``.

:func:`run_demo` writes a Flower App (its ``pyproject.toml`` names
the ServerApp and ClientApp of :mod:`boxcoxstat.federated.flower`), a certificate authority
and a TLS certificate for 127.0.0.1, and one EC key pair per SuperNode; it starts a SuperLink
with TLS and node authentication (``--enable-supernode-auth``), registers every SuperNode's
public key with ``flwr supernode register``, starts one SuperNode per client (each its own
process, with its private key and its site's CSV in its node config), runs the app with
``flwr run`` and reads the result the ServerApp writes. Every process it started (each in a
process group of its own, with the processes Flower spawns under it) is stopped at the end,
whatever happens.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .._validation.columns import BoxCoxError

__all__ = ["run_demo", "free_port"]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tls_and_keys(folder: Path, nodes: int) -> None:
    """A CA, a server certificate for 127.0.0.1 and ``nodes`` EC key pairs (PEM private,
    OpenSSH public, as Flower's node authentication reads them)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def cert(subject: str, key: Any, issuer: Any, issuer_key: Any, ca: bool) -> Any:
        b = (x509.CertificateBuilder()
             .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
             .issuer_name(issuer).public_key(key.public_key())
             .serial_number(x509.random_serial_number())
             .not_valid_before(now - datetime.timedelta(minutes=5))
             .not_valid_after(now + datetime.timedelta(days=1))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if not ca:
            b = b.add_extension(x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
        return b.sign(issuer_key, hashes.SHA256())

    def pem_key(key: Any) -> bytes:
        return key.private_bytes(serialization.Encoding.PEM,
                                 serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())

    ca_key = ec.generate_private_key(ec.SECP384R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "boxcoxstat demo CA")])
    ca = cert("boxcoxstat demo CA", ca_key, ca_name, ca_key, True)
    srv_key = ec.generate_private_key(ec.SECP384R1())
    srv = cert("127.0.0.1", srv_key, ca_name, ca_key, False)
    (folder / "ca.crt").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "server.pem").write_bytes(srv.public_bytes(serialization.Encoding.PEM))
    (folder / "server.key").write_bytes(pem_key(srv_key))
    for i in range(nodes):
        k = ec.generate_private_key(ec.SECP384R1())
        (folder / f"node{i}.key").write_bytes(k.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption()))
        (folder / f"node{i}.pub").write_bytes(k.public_key().public_bytes(
            serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH))


_APP = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "boxcoxstat-federated-demo"
version = "1.0.0"
description = "boxcoxstat: the paper's federated power transform on Flower"
license = "MIT"
dependencies = []

[tool.hatch.build.targets.wheel]
packages = ["."]

[tool.flwr.app]
publisher = "boxcoxstat"

[tool.flwr.app.components]
serverapp = "boxcoxstat.federated.flower:server_app"
clientapp = "boxcoxstat.federated.flower:client_app"

[tool.flwr.app.config]
family = "{family}"
out = "{out}"
min-nodes = {nodes}
timeout = {timeout}
deadline = {deadline}
wait-nodes = 120.0
on-bad-client = "drop"
"""


def _bin(name: str) -> str:
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if not found:
        raise BoxCoxError(f"Flower's {name!r} was not found: pip install 'boxcoxstat[flower]'")
    return found


def run_demo(sites: list[Any], *, family: str = "boxcox", timeout: float = 120.0,
             deadline: float = 1800.0, faults: dict[int, str] | None = None,
             workdir: str | None = None, log: Any = None) -> dict[str, Any]:
    """Run the paper's protocol on Flower's deployment engine, one SuperNode per entry of
    ``sites`` (DataFrames of one column), and return the ServerApp's document
    (``{"ok": True, "result": <PowerTransformResult JSON>}`` or the error).

    ``faults`` (node index -> ``"crash"`` or ``"silent"``) makes sites misbehave, to show
    that they are dropped and reported by node id while the others finish.
    """
    try:
        import flwr  # noqa: F401
    except ImportError:
        raise BoxCoxError("the Flower demo needs Flower: pip install 'boxcoxstat[flower]'") \
            from None
    faults = faults or {}
    tmp = Path(workdir or tempfile.mkdtemp(prefix="boxcoxstat-flower-"))
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "app").mkdir(exist_ok=True)
    (tmp / "home").mkdir(exist_ok=True)
    out = tmp / "result.json"
    if out.exists():
        out.unlink()
    _tls_and_keys(tmp, len(sites))
    (tmp / "app" / "pyproject.toml").write_text(_APP.format(
        family=family, out=out, nodes=len(sites), timeout=float(timeout),
        deadline=float(deadline)))
    for i, s in enumerate(sites):
        s.to_csv(tmp / f"site{i}.csv", index=False)
    port = free_port()
    (tmp / "home" / "config.toml").write_text(
        '[superlink]\ndefault = "local"\n\n[superlink.local]\n'
        f'address = "127.0.0.1:{port}"\nroot-certificates = "{tmp / "ca.crt"}"\n')
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "FLWR_HOME": str(tmp / "home"),
           "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", ""),
           # Flower starts its own helpers (flower-superexec, flwr-clientapp) from PATH
           "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")}
    procs: list[subprocess.Popen] = []

    def start(args: list[str], name: str) -> subprocess.Popen:
        fh = open(tmp / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        p = subprocess.Popen(args, stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=tmp,
                             start_new_session=True)
        procs.append(p)
        if log:
            log(f"started {name} (pid {p.pid})")
        return p

    try:
        start([_bin("flower-superlink"), "--ssl-ca-certfile", str(tmp / "ca.crt"),
               "--ssl-certfile", str(tmp / "server.pem"), "--ssl-keyfile",
               str(tmp / "server.key"), "--enable-supernode-auth", "--host", "127.0.0.1",
               "--port", str(port), "--disable-runtime-dependency-installation"], "superlink")
        _wait_port(port, 60.0)
        for i in range(len(sites)):
            reg = subprocess.run([_bin("flwr"), "supernode", "register",
                                  str(tmp / f"node{i}.pub"), "local"], env=env, cwd=tmp,
                                 capture_output=True, text=True, timeout=120)
            if reg.returncode != 0:
                raise BoxCoxError(f"registering SuperNode {i} failed: "
                                  f"{(reg.stdout + reg.stderr).strip()[-400:]}")
        for i in range(len(sites)):
            cfg = f'data="{tmp / f"site{i}.csv"}" family="{family}"'
            if i in faults:
                cfg += f' fault="{faults[i]}"'
            start([_bin("flower-supernode"), "--superlink", f"127.0.0.1:{port}",
                   "--root-certificates", str(tmp / "ca.crt"),
                   "--auth-supernode-private-key", str(tmp / f"node{i}.key"),
                   "--port", str(free_port()), "--node-config", cfg], f"supernode{i}")
        run = subprocess.run([_bin("flwr"), "run", str(tmp / "app"), "local"], env=env,
                             cwd=tmp, capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            raise BoxCoxError(f"flwr run failed: {(run.stdout + run.stderr).strip()[-600:]}")
        t0 = time.monotonic()
        while not out.exists():
            if time.monotonic() - t0 > deadline + 120:
                raise BoxCoxError(f"the Flower run wrote no result within {deadline:g} s; "
                                  f"see the logs in {tmp}")
            if procs[0].poll() is not None:
                raise BoxCoxError(f"the SuperLink stopped; see {tmp / 'superlink.log'}")
            time.sleep(1.0)
        time.sleep(0.5)
        return dict(json.loads(out.read_text()))
    finally:
        for p in reversed(procs):
            _stop(p)
        if log:
            log(f"stopped {len(procs)} process groups; logs in {tmp}")


def _wait_port(port: int, seconds: float) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise BoxCoxError(f"the SuperLink did not listen on 127.0.0.1:{port} within {seconds:g} s")


def _descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (from /proc; empty where there is no /proc)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").glob("[0-9]*"):
        try:
            stat = (d / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _stop(p: subprocess.Popen) -> None:
    """Stop a process started here, its group and every process Flower spawned under it
    (some start sessions of their own)."""
    tree = _descendants(p.pid)
    _signal_all(p.pid, tree, signal.SIGTERM)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        _signal_all(p.pid, [], signal.SIGKILL)
        p.wait(timeout=10)
    # children that outlived their leader: a last SIGKILL to the group and the tree
    _signal_all(p.pid, tree, signal.SIGKILL)


def _signal_all(group: int, pids: list[int], sig: int) -> None:
    """Send ``sig`` to the process group ``group`` and to each of ``pids`` (gone: skipped)."""
    targets = [(os.killpg, group)] + [(os.kill, c) for c in pids]
    for kill, target in targets:
        try:
            kill(target, sig)
        except ProcessLookupError:
            pass

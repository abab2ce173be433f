"""boxcoxstat.federated.flower on Flower's deployment engine (the optional extra
``boxcoxstat[flower]``): ``boxcoxstat federated-demo`` starts a SuperLink (TLS, node
authentication) and one SuperNode per client on 127.0.0.1, runs the paper's protocol, prints
the federated and the central fit side by side, exits 0 when they agree to 1e-10 and stops
every process it started.

Flower starts one ClientApp process per message, so a run takes minutes (3 clients, about 25
rounds): the deployment tests are marked slow."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("flwr", reason="the Flower tests need the extra: pip install "
                                   "'boxcoxstat[flower]'")

import boxcoxstat as bcs  # noqa: E402

ROOT = str(Path(bcs.__file__).resolve().parents[1])


def _ours(workdir: Path) -> list[str]:
    """Live processes whose command line names ``workdir`` (what the demo started)."""
    out = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if str(workdir) in cmd and state != "Z":
            out.append(f"{d.name} {cmd[:80]}")
    return out


def test_the_flower_apps_load():
    from flwr.clientapp import ClientApp
    from flwr.serverapp import ServerApp

    from boxcoxstat.federated import flower

    assert isinstance(flower.server_app, ServerApp)
    assert isinstance(flower.client_app, ClientApp)


def _demo(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "boxcoxstat", "federated-demo", "--clients", "3",
         "--workdir", str(tmp_path), *extra],
        capture_output=True, text=True, timeout=3600,
        env={**os.environ, "PYTHONPATH": ROOT})


@pytest.mark.slow
def test_federated_demo_on_the_deployment_engine(tmp_path):
    out = _demo(tmp_path)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "agree to 1e-10: yes" in out.stdout
    assert "node authentication" in out.stdout
    assert _ours(tmp_path) == []  # every process it started is gone


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["crash", "silent"])
def test_a_faulty_or_silent_flower_client_is_dropped_by_node_id(tmp_path, fault):
    out = _demo(tmp_path, "--fault", fault, "--timeout", "240")
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "dropped: {'node " in out.stdout
    assert ("failed on its node" if fault == "crash" else "did not answer") in out.stdout
    assert "agree to 1e-10: yes" in out.stdout  # with the central fit of the others
    assert _ours(tmp_path) == []

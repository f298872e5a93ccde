"""The wheel as a new user meets it: built, installed into a fresh venv, used from elsewhere.

The editable install `make` uses hides a wheel that lacks a package or a data file; this
test builds the wheel, installs it into a new virtual environment (with the pinned CPU torch)
and runs the README's commands from a folder outside the checkout: `--help`,
`knowledge validate`, `knowledge schema`, `ingest` + `ask` + `eval --limit 3` on a small
corpus and a replayed scenario that needs no programs.

Downloads are kept in a wheelhouse under the user's cache (pip's own HTTP cache is not
kept on this machine), so the second run installs offline from it. pip fills the
wheelhouse (it reads the machine's index settings); uv installs from it, offline, into
the fresh venv: the wheel, its metadata and the resolution of its dependencies are what
is tested, and uv does that install in ~9 s (~1 s once its cache holds the files) where
pip took ~45 s of the suite's two cores.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import PROJECT_ROOT, SHARED

from agentcycle.config import user_cache_dir

TORCH = "torch==2.13.0"
UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or "uv"  # the dev extra's
WHEELHOUSE = user_cache_dir() / "wheelhouse"
SEEDS = SHARED / "data" / "corpus" / "seeds"
DEV = SHARED / "data" / "qa" / "dev.yaml"
SEED_IDS = ("d012", "d013", "d020", "d021", "d024")
REPLAYED = "xray_model_not_placed"  # inputs/ of its own: needs neither programs nor demo data


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _install(python: Path, requirements: list[str], cwd: Path) -> None:
    """Install from the wheelhouse alone; fill it from the index only when it lacks a file."""
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    # Like pip's --no-compile, uv does not byte-compile what it installs: compiling every
    # package is most of an install's CPU time, and the commands compile what they import
    # on first use (see the test's environment).
    offline = [UV, "pip", "install", "-q", "--python", str(python), "--no-index"]
    offline += ["--find-links", str(WHEELHOUSE), *requirements]
    if subprocess.run(offline, cwd=cwd, env=env, capture_output=True, timeout=900).returncode:
        WHEELHOUSE.mkdir(parents=True, exist_ok=True)
        download = [str(python), "-m", "pip", "download", "-q", "-d", str(WHEELHOUSE)]
        try:
            _run([*download, *requirements], cwd, env, timeout=1800)
        finally:  # a kept copy of our own wheel would stand in for the next build's metadata
            for stale in WHEELHOUSE.glob("agentcycle-*"):
                stale.unlink()
        _run(offline, cwd, env)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bin/ of a fresh venv with the freshly built wheel installed (no checkout on the path)."""
    work = tmp_path_factory.mktemp("wheel")
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    _run([*build, str(PROJECT_ROOT), "-w", str(work / "dist")], work, dict(os.environ))
    (wheel,) = (work / "dist").glob("agentcycle-*.whl")
    base = getattr(sys, "_base_executable", sys.executable)
    _run([base, "-m", "venv", str(work / "venv")], work, dict(os.environ))
    python = work / "venv" / "bin" / "python"
    _install(python, [TORCH, str(wheel)], work)
    return work / "venv" / "bin"


@pytest.mark.slow
def test_wheel_commands_work_from_outside_the_checkout(
    installed: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "user"
    outside.mkdir()
    # PYTHONDONTWRITEBYTECODE (set on some CI machines) would make every command of
    # the uncompiled install compile torch, Prefect and transformers from source again
    # (~25 s each); a user's first command compiles and keeps them, as here.
    dropped = {"PYTHONPATH", "PREFECT_API_URL", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE"}
    env = {key: value for key, value in os.environ.items() if key not in dropped}
    env |= {
        "AGENTCYCLE_HOME": str(outside / ".agentcycle"),
        "PATH": f"{installed}{os.pathsep}{env.get('PATH', '')}",
        "HF_HUB_OFFLINE": "1",
        # The replayed scenario's recorded logs point into the shared data folder, which
        # is found from the scenario's location unless named: the copy below is elsewhere.
        "AGENTCYCLE_SHARED": str(SHARED),
    }
    cli = [str(installed / "agentcycle")]
    try:
        where = _run(
            [str(installed / "python"), "-c", "import agentcycle; print(agentcycle.__file__)"],
            outside,
            env,
        )
        assert "site-packages" in where and str(PROJECT_ROOT) not in where
        assert "Usage" in _run([*cli, "--help"], outside, env)
        assert _run([*cli, "--version"], outside, env).startswith("agentcycle ")
        for pack in ("xtal", "phenix", "bioimage"):
            assert ": ok (" in _run([*cli, "knowledge", "validate", pack], outside, env)
        _run([*cli, "knowledge", "schema", "--out", "schemas"], outside, env)
        assert len(list((outside / "schemas").glob("*.schema.json"))) == 6

        _run([*cli, "ingest", "seeds", str(SEEDS), "--no-progress"], outside, env)
        answer = _run([*cli, "ask", "seeds", "What is MAX_TOOL_CALLS in DocuChat?"], outside, env)
        assert answer.strip()
        data = yaml.safe_load(DEV.read_text())
        suite = {
            "name": "wheel-seeds",
            "kind": "qa",
            "corpus_root": str(SEEDS.parent),
            "corpus": ["seeds/*.md"],
            "questions": [q for q in data["questions"] if q["id"] in SEED_IDS],
        }
        (outside / "suite.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
        evaluated = _run(
            [*cli, "eval", "suite.yaml", "--limit", "3", "--concurrency", "1"], outside, env
        )
        assert "3" in evaluated
        corpora = _run([*cli, "corpus", "list"], outside, env).splitlines()
        assert [line.split()[0] for line in corpora] == ["seeds"]  # eval reused it by content
        assert _run([*cli, "store", "info"], outside, env).strip()
        status = _run([*cli, "server", "status"], outside, env)
        assert status.startswith("running: UI http://127.0.0.1:")
        assert _run([*cli, "server", "env"], outside, env).startswith("export PREFECT_API_URL=")

        scenario = outside / REPLAYED
        shutil.copytree(PROJECT_ROOT / "tests" / "scenarios" / REPLAYED, scenario)
        assert REPLAYED in _run([*cli, "scenario", "list", str(outside)], outside, env)
        replayed = _run([*cli, "scenario", "run", str(scenario)], outside, env)
        assert f"{REPLAYED}: passed" in replayed
        assert "(removed;" in replayed
        assert _run([*cli, "query", "SELECT count(*) AS n FROM cycles"], outside, env).strip()
    finally:
        subprocess.run([*cli, "server", "stop"], cwd=outside, env=env, timeout=120)

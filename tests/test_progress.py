"""Progress of long work: on stderr, only when it is a terminal (or forced), never on stdout."""

from types import SimpleNamespace

from kopsim.cli import main
from kopsim.records.replay import replay
from kopsim.rules.load import load_ruleset
from kopsim.experiments.simulate import simulate
from kopsim.terminal import compile_notice


def test_simulate_shows_a_bar_on_stderr_only_when_asked_or_on_a_terminal(tmp_path, capsys):
    simulate(load_ruleset("kop"), 3000, 1, str(tmp_path / "a.jsonl"), chunk=1000, progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "kop" in err and "hands" in err
    assert main(["simulate", "kop", "--hands", "3000", "--log", str(tmp_path / "b.jsonl")]) == 0
    out, err = capsys.readouterr()  # capsys' stderr is not a terminal: no bar
    assert err == "" and "3,000 hands" in out


def test_replay_shows_a_bar_on_stderr_only_when_asked(tmp_path, capsys):
    log = tmp_path / "x.jsonl"
    assert main(["simulate", "kop", "--hands", "500", "--log", str(log)]) == 0
    capsys.readouterr()
    assert replay(log, progress=True) == (500, [])
    out, err = capsys.readouterr()
    assert out == "" and "replay" in err
    assert main(["replay", str(log)]) == 0
    assert capsys.readouterr().err == ""


def _kernel(index_path):
    return SimpleNamespace(_cache=SimpleNamespace(_cache_file=SimpleNamespace(
        _index_path=str(index_path))))


def test_compile_notice_only_before_the_first_compile(tmp_path, capsys):
    compile_notice(_kernel(tmp_path / "missing.nbi"), force=True)
    assert "compiling the game kernels (once" in capsys.readouterr().err
    (tmp_path / "there.nbi").write_bytes(b"")
    compile_notice(_kernel(tmp_path / "there.nbi"), force=True)
    assert capsys.readouterr().err == ""
    compile_notice(_kernel(tmp_path / "missing.nbi"))  # said on any output, a file's too
    assert "compiling the game kernels (once" in capsys.readouterr().err
    compile_notice(_kernel(tmp_path / "missing.nbi"), force=False)
    assert capsys.readouterr().err == ""


def test_compile_notice_reads_numbas_real_cache(capsys):
    """The kernel has been compiled (and cached) by the tests above: no notice."""
    from kopsim.engine.kernel import _play_batch

    simulate(load_ruleset("kop"), 10, 1)
    compile_notice(_play_batch, force=True)
    assert capsys.readouterr().err == ""
    compile_notice(SimpleNamespace(), force=True)  # a numba laid out otherwise: quiet
    assert capsys.readouterr().err == ""


def test_building_the_compiled_code_is_said_apart_and_never_counted_as_play(monkeypatch):
    import time

    import kopsim.experiments.simulate as sim

    real = sim._build

    def slow_build(cr, bot):  # as a first run, which compiles
        real(cr, bot)
        time.sleep(1.5)
        return 1.5 + 0.0

    monkeypatch.setattr(sim, "_build", slow_build)
    summary = simulate(load_ruleset("kop"), 200, 1)
    assert summary.build_seconds == 1.5 and summary.seconds < 1.5
    lines = summary.text().splitlines()
    assert "hands/s" in lines[0] and "before play: 1.5 s to build the compiled code" in lines[1]
    monkeypatch.setattr(sim, "_build", lambda cr, bot: 0.2)  # loaded from the cache: no word
    assert "build" not in simulate(load_ruleset("kop"), 200, 1).text()

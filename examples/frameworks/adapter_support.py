"""What every adapter of this folder shares: the one-line refusal when its framework cannot be
imported (exit 3), and the per-model loop over fedverify's run messages (fedverify_protocol.py
beside the adapter if copied there, else the repository's verify/conformance/)."""
import pathlib
import sys


def cannot_import(framework, package, version, drives, error):
    """One line on stderr and exit 3: `framework` (or one of its own dependencies) is not
    importable; `package` is its top-level module and pip name."""
    missing = getattr(error, "name", None) or ""
    if missing.split(".")[0] == package:
        line = (f"{framework} is not installed: pip install {package}=={version}; "
                f"this adapter drives {drives}")
    else:
        line = (f"{framework} could not be imported ({error}): install its dependencies, e.g. "
                f"pip install {package}=={version}; this adapter drives {drives}")
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    sys.exit(3)


def serve(train_run):
    """train_run(oracle, run, bridge) for every run message (one chain each) until fedverify
    closes the input."""
    here = pathlib.Path(__file__).resolve().parent
    for directory in (here, here.parent.parent / "verify" / "conformance"):
        if (directory / "fedverify_protocol.py").is_file():
            sys.path.insert(0, str(directory))
            break
    from fedverify_protocol import Oracle  # noqa: E402
    import fedverify.torch as bridge  # noqa: E402  (the built package on PYTHONPATH)
    oracle = Oracle()
    for run in oracle.runs():
        train_run(oracle, run, bridge)

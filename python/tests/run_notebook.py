"""Executes a worked notebook of examples/notebooks with Debian's `jupyter nbconvert --to notebook
--execute` (ctest python.notebook.<name>) and checks what it promises: no cell of the executed
notebook has an error output, and every file named after the notebook on the command line was
written (non-empty) into the notebook's output directory, $FEDVERIFY_NOTEBOOK_OUT.

Exit 77 (ctest's SKIP_RETURN_CODE) when nbconvert or ipykernel is not installed (Debian packages
jupyter-nbconvert and python3-ipykernel; ./run.sh test installs them).

Usage: run_notebook.py NOTEBOOK OUT_DIR [EXPECTED_FILE ...]
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys


def main() -> int:
    notebook, out, *expected = sys.argv[1:]
    for module, package in (("nbconvert", "jupyter-nbconvert"), ("ipykernel", "python3-ipykernel")):
        if importlib.util.find_spec(module) is None:
            print(f"SKIP: {module} is not installed (apt-get install {package}; "
                  "./run.sh test installs it)")
            return 77
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    env = dict(os.environ, FEDVERIFY_NOTEBOOK_OUT=out)
    # `jupyter nbconvert` is `python3 -m nbconvert` of the Python that has it (Debian's): run it
    # by that Python so that a pyenv or virtualenv `jupyter` on PATH is not picked instead.
    jupyter = [sys.executable, "-m", "nbconvert"]
    done = subprocess.run(
        jupyter + ["--to", "notebook", "--execute", "--allow-errors",
                   "--ExecutePreprocessor.timeout=600",
                   "--ExecutePreprocessor.kernel_name=python3",
                   "--output-dir", out, "--output", "executed", notebook],
        env=env, capture_output=True, text=True, check=False)
    executed = os.path.join(out, "executed.ipynb")
    if done.returncode != 0 or not os.path.exists(executed):
        print(f"FAIL: nbconvert exited {done.returncode}:\n{done.stderr[-2000:]}")
        return 1
    with open(executed, encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    failures = []
    code = [c for c in cells if c["cell_type"] == "code"]
    for i, cell in enumerate(code):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                failures.append(f"code cell {i + 1}: {output.get('ename')}: {output.get('evalue')}")
        if cell.get("execution_count") is None:
            failures.append(f"code cell {i + 1} was not executed")
    for name in expected:
        path = os.path.join(out, name)
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            failures.append(f"{name}: not written (or empty) in {out}")
        else:
            print(f"ok: {name} written ({os.path.getsize(path)} bytes)")
    for failure in failures:
        print("FAIL:", failure)
    if not failures:
        print(f"ok: {len(code)} code cells executed without error outputs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

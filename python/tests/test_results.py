"""Results as data (python/fedverify/results.py, figures.py): a results.json of a real run loaded
into fedverify.Results — its rows and verdict counts as the JSON and the summary line have them,
its exit code as the command's — to_dataframe, check (a claim file) and plot."""

import importlib.util
import json
import os
import pathlib
import pickle
import re
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

import fedverify
from fedverify import _core
from fedverify import results as results_module
from support import CLI, PROBLEM

ROOT = pathlib.Path(os.environ.get("FEDVERIFY_SOURCE_DIR")
                    or pathlib.Path(__file__).resolve().parents[2])
EXAMPLE = ROOT / "examples" / "claims" / "fedavg_first_order_mean.json"
HAVE_PANDAS = importlib.util.find_spec("pandas") is not None
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
CAN_CHECK = hasattr(_core, "run_check") or bool(CLI)


def exact(measure, factor=1.0):
    def predict(problem, **setting):
        mean, cov = fedverify.exact_moments(problem, **setting)
        return factor * (mean if measure.endswith("mean") else cov)
    return predict


def summary(text):
    """The counts of a summary line "fedverify report: 6 of 6 claims hold, 0 inconclusive,
    0 fail; 0 regressions; …"."""
    m = re.search(r"(\d+) of (\d+) claims hold, (\d+) inconclusive, (\d+) fail; (\d+) regression",
                  text)
    hold, total, inconclusive, fails, regressions = map(int, m.groups())
    return total, {"holds": hold, "inconclusive": inconclusive, "fails": fails}, regressions


class PythonReport(unittest.TestCase):
    """report() of Python claims: one that holds (exact), one that fails (1 % off, exact) and a
    simulated one (margins, MDEs, 64-bit seeds)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        problem = fedverify.parse_problem(json.dumps(PROBLEM))
        grid = {"local_steps": [1, 2], "gamma": [0.02, 0.05, 0.1]}
        cls.claims = [
            fedverify.Claim("r.holds", "statement", problem=problem, grid=grid,
                            predict=exact("mean"), measure="exact_mean", tolerance=1e-12),
            fedverify.Claim("r.fails", "statement", problem=problem, grid=grid,
                            predict=exact("cov", 1.01), measure="exact_cov", tolerance=0.005),
            fedverify.Claim("r.simulated", "statement", problem=problem,
                            grid={"gamma": [0.05, 0.1]}, predict=exact("mean"),
                            measure="simulated_mean", chains=64, rounds=600, burn_in=100),
        ]
        cls.out = os.path.join(cls.tmp.name, "report")
        cls.results = fedverify.report(cls.claims, out=cls.out, seed=3, threads=2)
        with open(os.path.join(cls.out, "results.json")) as f:
            cls.json = json.load(f)
        with open(os.path.join(cls.out, "REPORT.md")) as f:
            cls.md = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_claims_and_rows_are_the_jsons(self):
        r = self.results
        self.assertIsInstance(r, fedverify.Results)
        self.assertEqual(r.path, os.path.join(self.out, "results.json"))
        self.assertEqual([c.id for c in r.claims], [c["id"] for c in self.json["claims"]])
        self.assertEqual([c.verdict for c in r.claims], ["holds", "fails", "holds"])
        self.assertEqual([len(c.rows) for c in r.claims],
                         [len(c["rows"]) for c in self.json["claims"]])
        self.assertEqual([len(c.rows) for c in r.claims], [6, 6, 2])
        self.assertEqual(r.claim("r.fails").rows, self.json["claims"][1]["rows"])
        self.assertEqual(r.run["seed"], 3)
        self.assertEqual(r.verdict_classes, self.json["verdict_classes"])
        self.assertEqual(len(list(r.rows())), 14)
        with self.assertRaises(fedverify.InputError) as caught:
            r.claim("r.none")
        self.assertTrue(str(caught.exception).startswith("claim_id:"))

    def test_counts_are_the_summary_lines(self):
        # REPORT.md's "3 claims checked: 2 hold, 0 inconclusive, 1 fails."
        m = re.search(r"(\d+) claims checked: (\d+) holds?, (\d+) inconclusive, (\d+) fails?\.",
                      self.md)
        total, hold, inconclusive, fails = map(int, m.groups())
        self.assertEqual(len(self.results.claims), total)
        self.assertEqual(self.results.counts,
                         {"holds": hold, "inconclusive": inconclusive, "fails": fails})
        self.assertEqual(repr(self.results),
                         f"<fedverify.Results 3 claims: 2 hold, 0 inconclusive, 1 fail; "
                         f"0 regressions; exit code 1; {self.results.path}>")

    def test_exit_code_and_int_compatibility(self):
        # report() returned the exit code; its Results still is that int.
        r = self.results
        self.assertEqual(r.exit_code, 1)
        self.assertFalse(r.passed)
        self.assertTrue(r == 1 and r != 0 and 1 == r)
        self.assertEqual(int(r), 1)
        self.assertEqual([10, 11][r], 11)  # __index__
        self.assertEqual((str(r), f"{r}", f"{r:d}", json.dumps(r)), ("1", "1", "1", "1"))
        self.assertTrue(r)  # as the int 1: something failed
        self.assertEqual(hash(r), hash(1))
        again = pickle.loads(pickle.dumps(r))
        self.assertEqual((again.exit_code, again.path, again.raw), (1, r.path, r.raw))
        # Loaded from the file, the exit code is the command's rule (no failing claim, no
        # regression → 0), and the interpreter exits with it.
        self.assertEqual(fedverify.load_results(self.out).exit_code, 1)
        for claims, code in ((self.claims[:1], 0), (self.claims[:2], 1)):
            with self.subTest(code=code), tempfile.TemporaryDirectory() as d:
                r = fedverify.report(claims, out=d, seed=3)
                self.assertEqual((r, r.exit_code, r == code), (code, code, True))
                done = subprocess.run([sys.executable, "-c", "import sys, fedverify; "
                                       f"sys.exit(fedverify.load_results({d!r}))"], check=False)
                self.assertEqual(done.returncode, code)

    def test_load_results_from_a_file_or_directory(self):
        for where in (self.out, os.path.join(self.out, "results.json"), pathlib.Path(self.out)):
            loaded = fedverify.load_results(where)
            self.assertEqual(loaded.raw, self.json)
            self.assertEqual(loaded.path, os.path.join(self.out, "results.json"))

    @unittest.skipUnless(HAVE_PANDAS, "pandas is not importable (install python3-pandas)")
    def test_dataframe(self):
        import pandas as pd
        df = self.results.to_dataframe()
        self.assertEqual(len(df), sum(len(c["rows"]) for c in self.json["claims"]))
        self.assertEqual(list(df.columns[:len(results_module.COLUMNS)]),
                         list(results_module.COLUMNS))
        dtypes = {"claim": object, "claim_verdict": object, "claim_passed": bool,
                  "claim_alpha": "float64", "claim_seconds": "float64", "row": "int64",
                  "setting": object, "predicted": object, "measured": object, "passed": bool,
                  "verdict_class": object, "margin": "float64", "mde": "float64",
                  "equivalence_confirmed": "boolean", "budget_multiple_needed": "float64",
                  "rerun": bool, "data.relative_error": "float64", "data.tolerance": "float64",
                  "data.setting.gamma": "float64", "data.setting.local_steps": "Int64",
                  "data.seed": "UInt64", "data.p_value": "float64"}
        for column, dtype in dtypes.items():
            self.assertEqual(df[column].dtype, pd.Series([], dtype=dtype).dtype, column)
        # Every row as the JSON has it, in order.
        i = 0
        for c in self.json["claims"]:
            for k, row in enumerate(c["rows"]):
                got = df.iloc[i]
                self.assertEqual((got["claim"], got["claim_verdict"], got["row"], got["setting"],
                                  got["passed"], got["verdict_class"]),
                                 (c["id"], c["verdict"], k, row["setting"], row["passed"],
                                  row["verdict_class"]))
                if "relative_error" in row["data"]:
                    self.assertEqual(got["data.relative_error"], row["data"]["relative_error"])
                if "seed" in row["data"]:
                    self.assertEqual(int(got["data.seed"]), row["data"]["seed"])  # exact
                i += 1
        self.assertEqual(df.groupby("claim", sort=False)["passed"].all().tolist(),
                         [True, False, True])
        simulated = df[df["claim"] == "r.simulated"]
        # The claim engine of claim files reports the rule's MDE for Python claims too.
        self.assertTrue((simulated["mde"] > 0).all())
        self.assertTrue((simulated["margin"] == 0.05).all())
        self.assertTrue(df[df["claim"] == "r.holds"]["margin"].isna().all())

    def test_typed_setting_and_measured(self):
        """results.json rows carry their setting as values (setting_values) and their gates as
        measured_values; to_dataframe has them as setting.<name> and measured.<gate> columns."""
        for c in self.json["claims"]:
            for row in c["rows"]:
                self.assertEqual(row["setting_labels"], [])
                values = row["setting_values"]
                # The Python claim labels its row "local_steps = 1, gamma = 0.02": both numbers.
                for key, value in row["data"]["setting"].items():
                    self.assertEqual(values[key], value, row["setting"])
                self.assertEqual(set(row["measured_values"]), {g["name"] for g in row["gates"]})
        df = self.results.to_dataframe()
        self.assertTrue((df["setting.gamma"] == df["data.setting.gamma"]).all())
        self.assertEqual(df["setting.gamma"].dtype, "float64")

    def test_dataframe_without_pandas_names_the_package(self):
        with mock.patch.dict(sys.modules, {"pandas": None}):
            with self.assertRaises(ImportError) as caught:
                self.results.to_dataframe()
        self.assertIn("python3-pandas", str(caught.exception))

    @unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not importable (install "
                                          "python3-matplotlib)")
    def test_plot(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.axes import Axes
        for claim_id in ("r.holds", "r.fails", "r.simulated"):
            with self.subTest(claim=claim_id):
                claim = self.results.claim(claim_id)
                ax = fedverify.plot(self.results, claim_id)
                self.assertIsInstance(ax, Axes)
                points = [line for line in ax.lines if line.get_gid() == "rows"]
                self.assertEqual(sum(len(line.get_xdata()) for line in points), len(claim.rows))
                xs = sorted(x for line in points for x in line.get_xdata())
                self.assertEqual(xs, sorted(r["data"]["setting"]["gamma"] for r in claim.rows))
                self.assertEqual((ax.get_xscale(), ax.get_xlabel()), ("log", "γ"))
                colours = {matplotlib.colors.to_hex(line.get_color()) for line in points}
                self.assertLessEqual(colours, {c.lower() for c in fedverify.figures.OKABE_ITO})
                # The legend sits outside the axes (anchored right of them).
                legend = ax.get_legend()
                self.assertIsNotNone(legend)
                self.assertGreater(legend.get_bbox_to_anchor().x0,
                                   ax.get_window_extent().x1 - 1)
                plt.close(ax.figure)
        # Failing rows are crosses; into a given Axes.
        _, given = plt.subplots()
        ax = fedverify.plot(self.out, "r.fails", ax=given)
        self.assertIs(ax, given)
        self.assertTrue(all(line.get_marker() == "x" for line in ax.lines
                            if line.get_gid() == "rows"))
        plt.close(given.figure)
        with self.assertRaises(fedverify.InputError) as caught:
            fedverify.plot(self.results, "r.none")
        self.assertTrue(str(caught.exception).startswith("claim_id:"))

    def test_plot_without_matplotlib_names_the_package(self):
        with mock.patch.dict(sys.modules, {"matplotlib": None, "matplotlib.pyplot": None}):
            with self.assertRaises(ImportError) as caught:
                fedverify.plot(self.results, "r.holds")
        self.assertIn("python3-matplotlib", str(caught.exception))


class Baseline(unittest.TestCase):
    """The committed reports/baseline/results.json (the catalogue, --quick)."""

    def setUp(self):
        self.path = ROOT / "reports" / "baseline" / "results.json"
        with open(self.path) as f:
            self.json = json.load(f)
        self.results = fedverify.load_results(self.path)

    def test_claims_rows_and_exit_code(self):
        r = self.results
        self.assertEqual(len(r.claims), len(self.json["claims"]))
        self.assertEqual(sum(len(c.rows) for c in r.claims),
                         sum(len(c["rows"]) for c in self.json["claims"]))
        verdicts = [c["verdict"] for c in self.json["claims"]]
        self.assertEqual(r.counts, {"holds": verdicts.count("holds"),
                                    "inconclusive": verdicts.count("inconclusive"),
                                    "fails": verdicts.count("fails")})
        self.assertEqual(r.exit_code, 0 if "fails" not in verdicts else 1)
        self.assertTrue(repr(r).startswith(f"<fedverify.Results {len(verdicts)} claims: "))

    @unittest.skipUnless(HAVE_PANDAS, "pandas is not importable (install python3-pandas)")
    def test_dataframe_rows(self):
        df = self.results.to_dataframe()
        self.assertEqual(len(df), sum(len(c["rows"]) for c in self.json["claims"]))
        self.assertEqual(df["verdict_class"].value_counts().to_dict(),
                         {k.replace("_", " "): v for k, v in self.json["verdict_classes"].items()
                          if v})

    @unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not importable (install "
                                          "python3-matplotlib)")
    def test_plot_mde_bars_and_remainder_curves(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        # Statistical rows without one γ and relative error: one MDE bar per row.
        claim = self.results.claim("dynamics.linear-speedup")
        ax = fedverify.plot(self.results, claim.id)
        bars = [p for p in ax.patches if p.get_gid() == "rows"]
        self.assertEqual(len(bars), len(claim.rows))
        plt.close(ax.figure)
        # Rows with γ and remainder lists: one line per row, a vertex per γ.
        claim = self.results.claim("quadratic.exact-remainder-order")
        ax = fedverify.plot(self.results, claim.id)
        lines = [line for line in ax.lines if line.get_gid() == "rows"]
        self.assertEqual([len(line.get_xdata()) for line in lines],
                         [len(r["data"]["gamma"]) for r in claim.rows])
        plt.close(ax.figure)
        with self.assertRaises(fedverify.InputError) as caught:  # nothing it could draw
            fedverify.plot(self.results, "maps.contraction")
        self.assertTrue(str(caught.exception).startswith("claim_id:"))


class LoadErrors(unittest.TestCase):
    def assert_input_error(self, prefix, text=None):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "results.json")
            if text is not None:
                with open(path, "w") as f:
                    f.write(text)
            with self.assertRaises(fedverify.InputError) as caught:
                fedverify.load_results(d)
        self.assertTrue(str(caught.exception).startswith(prefix.format(path=path)),
                        str(caught.exception))

    def test_errors_name_the_argument_file_and_field(self):
        self.assert_input_error("path: cannot read {path}")
        self.assert_input_error("{path}: not JSON", "{")
        self.assert_input_error("{path}: not a fedverify results.json", "[]")
        self.assert_input_error("{path}: claims[0].rows:",
                                '{"claims": [{"id": "a", "verdict": "holds"}]}')
        self.assert_input_error("{path}: claims[0].rows[1]:", '{"claims": [{"id": "a", '
                                '"verdict": "holds", "rows": [{"passed": true}, {}]}]}')
        with self.assertRaises(TypeError) as caught:
            fedverify.load_results(3)
        self.assertTrue(str(caught.exception).startswith("path:"))


@unittest.skipUnless(CLI, "FEDVERIFY_CLI is not set (the command line built beside the module)")
class CommandLineReport(unittest.TestCase):
    def test_catalogue_results_are_the_summary_lines(self):
        with tempfile.TemporaryDirectory() as d:
            done = subprocess.run([CLI, "report", "--quick", "--only", "quadratic.*", "--out", d,
                                   "--threads", "2"], capture_output=True, text=True,
                                  check=False)
            r = fedverify.load_results(d)
            with open(os.path.join(d, "results.json")) as f:
                raw = json.load(f)
        total, counts, regressions = summary(done.stderr)
        self.assertEqual((len(r.claims), r.counts, len(r.regressions)),
                         (total, counts, regressions))
        self.assertEqual(r.exit_code, done.returncode)
        self.assertEqual([len(c.rows) for c in r.claims], [len(c["rows"]) for c in raw["claims"]])
        if HAVE_PANDAS:
            self.assertEqual(len(r.to_dataframe()), sum(len(c["rows"]) for c in raw["claims"]))


@unittest.skipUnless(CAN_CHECK, "neither fedverify._core.run_check nor FEDVERIFY_CLI")
class Check(unittest.TestCase):
    def failing_claim_file(self, d):
        with open(EXAMPLE) as f:
            claim = json.load(f)
        claim["problem"] = str((EXAMPLE.parent / claim["problem"]).resolve())
        claim["decision"]["tolerance"] = 1e-9  # the relative errors are ≈ 1e-6: fails
        path = os.path.join(d, "fails.json")
        with open(path, "w") as f:
            json.dump(claim, f)
        return path

    def test_check_a_claim_file(self):
        with tempfile.TemporaryDirectory() as d:
            r = fedverify.check(EXAMPLE, out=os.path.join(d, "holds"), threads=2)
            self.assertEqual((r, r.exit_code, r.counts["holds"]), (0, 0, 1))
            self.assertEqual([c.id for c in r.claims], ["example.fedavg-first-order-mean"])
            self.assertEqual(len(r.claims[0].rows), 3)
            self.assertEqual(r.run["seed"], _core.DEFAULT_SEED)
            fails = fedverify.check(self.failing_claim_file(d), out=os.path.join(d, "fails"),
                                    seed=5)
            self.assertEqual((fails, fails.counts["fails"], fails.run["seed"]), (1, 1, 5))

    def test_errors_name_the_file_or_argument(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(fedverify.InputError) as caught:
                fedverify.check(os.path.join(d, "none.json"), out=d)
            self.assertIn("none.json", str(caught.exception))
            self.assertNotIn("--", str(caught.exception))
        with self.assertRaises(TypeError) as caught:
            fedverify.check(EXAMPLE, seed="1")
        self.assertTrue(str(caught.exception).startswith("seed:"))

    @unittest.skipUnless(CLI, "FEDVERIFY_CLI is not set")
    def test_command_line_fallback_is_the_cores_numbers(self):
        # Without a core binding check() runs the command line; with one, both give the same file.
        without = types.SimpleNamespace(InputError=_core.InputError,
                                        DEFAULT_SEED=_core.DEFAULT_SEED)
        with tempfile.TemporaryDirectory() as d:
            with mock.patch.object(results_module, "_core", without):
                by_cli = fedverify.check(EXAMPLE, out=os.path.join(d, "cli"))
                with mock.patch.dict(os.environ, {"FEDVERIFY_CLI": "", "PATH": ""}):
                    with self.assertRaises(RuntimeError) as caught:
                        fedverify.check(EXAMPLE, out=os.path.join(d, "none"))
                self.assertIn("FEDVERIFY_CLI", str(caught.exception))
            self.assertEqual(by_cli, 0)
            if hasattr(_core, "run_check"):
                by_core = fedverify.check(EXAMPLE, out=os.path.join(d, "core"))
                strip = lambda raw: [dict(c, seconds=0) for c in raw["claims"]]  # noqa: E731
                self.assertEqual(strip(by_core.raw), strip(by_cli.raw))


if __name__ == "__main__":
    unittest.main()

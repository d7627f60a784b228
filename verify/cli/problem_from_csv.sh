#!/usr/bin/env bash
# CLI contract of `fedverify problem from-csv` (docs/CLI.md, docs/PROBLEM_FORMATS.md "From a CSV
# file"): the shipped CSV tables (examples/problems/*.csv) become logistic and least-squares
# problem files that `predict` and `simulate` read unchanged, with the documented split (N
# clients whose rows add up to the table's; by-column: one client per value); the same seed
# gives the same bytes (stdout and --out alike), another seed another split; bad tables and
# options exit 2 with one stderr line naming the option, or the file, line and column.
# Usage: bash problem_from_csv.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
EX="$SOURCE_DIR/examples/problems"
CANCER="$EX/breast-cancer.csv"
DIABETES="$EX/diabetes.csv"

# summary FILE: "kind N rows d" of a problem file, and for by-column its client values.
summary() {
  /usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
c = p["clients"]
rows = sum(len(x["features"]) for x in c)
print(p["kind"], len(c), rows, len(c[0]["features"][0]), ",".join(p["generator"].get("client_values", [])))' "$1"
}
data_rows() { echo $(($(grep -c . "$1") - 1)); }

# 1. Logistic, iid: 4 clients holding every row once; predict and simulate read the file.
"$FEDVERIFY" problem from-csv "$CANCER" --label diagnosis --clients 4 --seed 3 \
  > "$WORK/lr.json" 2> "$WORK/err.txt" || fail "from-csv logistic: exit $?: $(cat "$WORK/err.txt")"
read -r kind n rows d _ <<< "$(summary "$WORK/lr.json")"
cols=$(head -1 "$CANCER" | tr ',' '\n' | wc -l)
if [ "$kind $n $rows $d" = "logistic 4 $(data_rows "$CANCER") $cols" ]; then
  echo "ok: logistic iid: 4 clients, $rows rows, d = $d (features + intercept)"
else
  fail "logistic iid: got kind $kind, N $n, $rows rows, d $d; expected logistic 4 $(data_rows "$CANCER") $cols"
fi
expect "predict reads the logistic file" 0 '"x_star"' \
  predict --problem "$WORK/lr.json" --algo fedavg --gamma 0.05 --local-steps 2
expect "simulate reads the logistic file" 0 '"mean"' \
  simulate --problem "$WORK/lr.json" --algo fedavg --gamma 0.05 --chains 4 --rounds 60 \
  --burn-in 10 --seed 1 --threads 1

# 2. Same seed: the same bytes, on stdout and with --out; another seed: another split.
"$FEDVERIFY" problem from-csv "$CANCER" --label diagnosis --clients 4 --seed 3 \
  --out "$WORK/lr2.json" 2> "$WORK/err.txt" > "$WORK/stdout.txt"
if cmp -s "$WORK/lr.json" "$WORK/lr2.json" && [ ! -s "$WORK/stdout.txt" ] &&
  grep -q "wrote .*lr2.json: logistic" "$WORK/err.txt"; then
  echo "ok: same seed, same bytes (stdout and --out); --out says what it wrote"
else
  fail "--out: differs from stdout, or stdout not empty, or no summary: $(cat "$WORK/err.txt")"
fi
"$FEDVERIFY" problem from-csv "$CANCER" --label diagnosis --clients 4 --seed 4 > "$WORK/lr4.json"
cmp -s "$WORK/lr.json" "$WORK/lr4.json" && fail "seeds 3 and 4 gave the same split" ||
  echo "ok: another seed, another split"

# 3. Least squares by column: one client per value of sex (two values in the table).
values=$(tail -n +2 "$DIABETES" | cut -d, -f2 | sort -u | tr '\n' ',' | sed 's/,$//')
"$FEDVERIFY" problem from-csv "$DIABETES" --kind least-squares --label progression \
  --split by-column --client-column sex --out "$WORK/ls.json" 2> "$WORK/err.txt" ||
  fail "from-csv by-column: exit $?: $(cat "$WORK/err.txt")"
read -r kind n rows d got_values <<< "$(summary "$WORK/ls.json")"
if [ "$kind $n $rows $got_values" = "least-squares 2 $(data_rows "$DIABETES") $values" ] && [ "$d" -eq 10 ]; then
  echo "ok: least-squares by-column sex: clients $got_values, $rows rows, d = $d (9 features + intercept)"
else
  fail "by-column: got $kind N $n, $rows rows, d $d, values $got_values (expected values $values)"
fi
expect "predict reads the least-squares file" 0 '"mean_exact"' \
  predict --problem "$WORK/ls.json" --algo fedavg --gamma 0.01 --local-steps 2

# 4. Least squares, Dirichlet over target bins, features chosen, no standardisation.
expect "dirichlet least-squares with chosen features" 0 '"kind":"least-squares"' \
  problem from-csv "$DIABETES" --kind least-squares --label progression --split dirichlet \
  --alpha 0.3 --clients 5 --features bmi,bp,s5 --no-standardise --seed 9
cp "$WORK/out.json" "$WORK/dir.json"
expect "and predict reads it" 0 '"x_star"' \
  predict --problem "$WORK/dir.json" --algo fedavg --gamma 0.00001

# 5. Refusals: exit 2, one stderr line naming the option, or the file, line and column.
printf '' > "$WORK/empty.csv"
printf 'a,b,y\n1,2,0\n3,4\n' > "$WORK/ragged.csv"
printf 'a,b,y\n1,2,0\n3,x4,1\n' > "$WORK/text.csv"
printf 'a,b,y\n1,2,0\nnan,4,1\n' > "$WORK/nan.csv"
printf 'a,b,y\n1,2,0\n3,inf,1\n' > "$WORK/inf.csv"
printf 'a,b,y\n1,2,cat\n3,4,dog\n5,7,cow\n' > "$WORK/three.csv"
expect_error "empty file" "empty.csv: the file holds no rows" \
  problem from-csv "$WORK/empty.csv" --label y --clients 1
expect_error "ragged row" "ragged.csv: line 3: 2 fields" \
  problem from-csv "$WORK/ragged.csv" --label y --clients 1
expect_error "non-numeric cell" 'text.csv: line 3, column 2 (b): "x4" is not a number' \
  problem from-csv "$WORK/text.csv" --label y --clients 1
expect_error "NaN cell" 'line 3, column 1 (a): "nan" is not a finite number' \
  problem from-csv "$WORK/nan.csv" --label y --clients 1
expect_error "infinite cell" 'line 3, column 2 (b): "inf" is not a finite number' \
  problem from-csv "$WORK/inf.csv" --label y --clients 1
expect_error "missing label column" '--label: no column named "target"' \
  problem from-csv "$CANCER" --label target --clients 2
expect_error "three labels for a logistic problem" '"cat", "dog", "cow"' \
  problem from-csv "$WORK/three.csv" --label y --clients 1
expect_error "a client left without rows" "--clients: client 143 would receive no rows" \
  problem from-csv "$CANCER" --label diagnosis --clients 500
expect_error "a client left without rows: advice" "use at most 143 clients" \
  problem from-csv "$CANCER" --label diagnosis --clients 500 --split dirichlet
expect_error "unknown split" "--split: expected" \
  problem from-csv "$CANCER" --label diagnosis --clients 2 --split random
expect_error "by-column without its column" "--client-column: required" \
  problem from-csv "$CANCER" --label diagnosis --split by-column
expect_error "unknown feature" '--features: no column named "area"' \
  problem from-csv "$CANCER" --label diagnosis --clients 2 --features radius,area
expect_error "missing --label" "--label" problem from-csv "$CANCER" --clients 2
expect_error "missing file" "nothing.csv: cannot open file" \
  problem from-csv "$WORK/nothing.csv" --label y --clients 2
expect_error "problem without a subcommand" "problem: a subcommand is required; the subcommands are from-csv" problem
expect_error "misspelt subcommand" "did you mean from-csv?" problem from-cvs x.csv
expect_error "misspelt option" "problem from-csv: unknown option --lable (did you mean --label?)" \
  problem from-csv "$CANCER" --lable diagnosis

# 6. Help lists the options.
"$FEDVERIFY" problem from-csv --help > "$WORK/help.txt" 2>&1
grep -q -- "--client-column" "$WORK/help.txt" && grep -q -- "--split" "$WORK/help.txt" &&
  echo "ok: problem from-csv --help lists its options" ||
  fail "problem from-csv --help: $(head -5 "$WORK/help.txt")"
finish "problem from-csv"

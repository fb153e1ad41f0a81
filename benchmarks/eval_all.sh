#!/bin/sh
# Every question set's `guide-tui eval` report into results/, replacing today's reports of the same sets.
#
#     guide-tui index --corpus ../shared/corpora/city_guides --out /tmp/orig-index
#     sh benchmarks/eval_all.sh /tmp/orig-index
#     .venv/bin/python benchmarks/eval_table.py      # the README's eval table from those reports
#
# The sets written about the project's own edition (question_sets.ON_BUNDLED) run on the bundled index, the rest on
# the index of the originals. A set that misses a target exits non-zero; that is a report, not a failure here.
set -u
cd "$(dirname "$0")/.."
originals=${1:?usage: sh benchmarks/eval_all.sh INDEX_OF_THE_ORIGINAL_GUIDES}
guide=.venv/bin/guide-tui
python=.venv/bin/python
bundled=$($python -c "from guide_tui.paths import BUNDLED_INDEX; print(BUNDLED_INDEX)")
on_bundled=$(cd benchmarks && ../$python -c "from question_sets import ON_BUNDLED; print(' '.join(sorted(ON_BUNDLED)))")
today=$(date +%Y-%m-%d)  # the reports are named by local date (evaluation.py)
rm -f "results/eval-$today-extractive.md" "results/eval-$today-extractive.json"
$guide eval --index "$bundled" --out results > /dev/null 2>&1
for file in benchmarks/data/*_questions.jsonl ../shared/eval/dev_questions.jsonl; do
  name=$(basename "$file" _questions.jsonl)
  report=results/eval-$today-extractive-$name-questions  # the name evaluation.py gives the set's report
  index=$originals
  for set in $on_bundled; do [ "$name" = "$set" ] && index=$bundled; done
  rm -f "$report.md" "$report.json"
  $guide eval --index "$index" --questions "$file" --out results > /dev/null 2>&1
  echo "$name: $(ls "$report.md" 2>/dev/null)"
done

# Shared by host_cost_callgrind.sh and update_cost_callgrind.sh (sourced, not run): building the
# benches and the stand-in driver, running each path of a bench under callgrind, and the table of
# instructions and code lines per call that lib/per_call.py prints from the runs.

artifact() { # the executable (or cdylib) cargo built for target $1, from the JSON on stdin
  python3 -c 'import json,sys
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == sys.argv[1]:
        print(m.get("executable") or [f for f in m["filenames"] if f.endswith(".so")][0])' "$1"
}

stand_in_driver() { # builds benches/stand_in_libcuda as $1/driver/libcuda.so
  local lib
  lib=$(cargo build --release --example stand_in_libcuda --message-format=json 2>/dev/null \
    | artifact stand_in_libcuda)
  mkdir "$1/driver"
  cp "$lib" "$1/driver/libcuda.so"
}

callgrind_paths() { # out exe selector-variable path[=floor]...: one callgrind run of exe per
  # path, on the stand-in driver, with the selector variable naming the path (other settings from
  # the caller's environment); the counts land in out/<path>.cg, for lib/per_call.py (which takes
  # the same path[=floor] list)
  local out=$1 exe=$2 var=$3 spec p
  shift 3
  for spec in "$@"; do
    p=${spec%%=*}
    env "$var=$p" LD_LIBRARY_PATH="$out/driver" \
      valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
      --callgrind-out-file="$out/$p.cg" "$exe" > /dev/null 2> "$out/$p.log" \
      || { cat "$out/$p.log" >&2; return 1; }
  done
}

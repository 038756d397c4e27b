#!/usr/bin/env python3
"""Writes tests/lang/*.test: per-feature execution tests of the HLSL language, each with its
inputs and expected buffers computed here by a Python model of the kernel (f32 rounding after
every operation, HLSL's integer wrapping, cbuffer and structured-buffer layouts, wave lanes).
Nothing here runs wavec.

Run from anywhere:  python3 tests/lang/gen/gen_lang.py [--check] [NAME ...]
  NAME      write only the tests whose name contains NAME
  --check   then check the written files with validate.py (sections, YAML, sizes, bindings)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib  # noqa: E402
import t_core  # noqa: E402
MODULES = [t_core]
for _name in ['t_memory', 't_resources', 't_expr_cf', 't_types', 't_intrinsics', 't_wave', 't_source', 't_hv2018',
              't_realcode', 't_resource_arrays', 't_int64', 't_double']:
    try:
        MODULES.append(__import__(_name))
    except ModuleNotFoundError as e:
        if e.name != _name:
            raise


def main(argv):
    lib.CHECK = '--check' in argv
    names = [a for a in argv if not a.startswith('--')]
    os.makedirs(lib.LANG, exist_ok=True)
    count = 0
    for m in MODULES:
        for fn in m.TESTS:
            if names and not any(n in fn.__name__ for n in names):
                continue
            fn()
            count += 1
    for p in lib.WRITTEN:
        print('wrote', os.path.relpath(p, lib.ROOT))
    print('%d generators, %d files' % (count, len(lib.WRITTEN)))
    if lib.CHECK:
        import validate
        return validate.main([p for p in lib.WRITTEN if p.endswith('.test')])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

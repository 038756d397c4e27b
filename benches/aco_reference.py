#!/usr/bin/env python3
"""Writes benches/results/aco.json: Mesa ACO's figures for the quality table's kernels.

A production compiler's yardstick for the table's section "At a production compiler's budget":
each kernel's HLSL (the `#--- source.hlsl` section of its .test file) goes through glslang and
RADV's ACO back end for vega10 (GCN5, wave64) with the project's shared tool
(../shared/tools/aco: `sh oracle/setup.sh` installs glslang, Mesa and the Vulkan bindings once),
and its VGPRs and instructions without waits, nops and the end are recorded. Kernels glslang
does not accept (its HLSL has limits) are left out. Nothing of ACO is copied into the
repository: only these figures, which the table reads.

Run from the repository root:  python3 benches/aco_reference.py [--aco PATH/TO/aco_stats.py]
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
SETS = ['benches/kernels', 'examples', 'examples/seeds']


def source_of(path):
    text = open(path, encoding='utf-8').read()
    if '#--- source.hlsl' not in text:
        return None
    body = text.split('#--- source.hlsl', 1)[1]
    return body.split('\n#--- ', 1)[0]


def main(argv):
    aco = os.path.join(ROOT, '..', 'shared', 'tools', 'aco', 'aco', 'aco_stats.py')
    if '--aco' in argv:
        aco = argv[argv.index('--aco') + 1]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for s in SETS:
            for name in sorted(os.listdir(os.path.join(ROOT, s))):
                if not name.endswith('.test'):
                    continue
                src = source_of(os.path.join(ROOT, s, name))
                if src is None:
                    continue
                p = os.path.join(tmp, name[:-len('.test')] + '.hlsl')
                open(p, 'w', encoding='utf-8').write(src)
                files.append(p)
        for p in files:
            # One kernel per run: a kernel glslang refuses fails alone.
            r = subprocess.run([sys.executable, aco, '--family', 'vega10', '--json', p], capture_output=True, text=True)
            kernel = os.path.basename(p)[:-len('.hlsl')]
            try:
                rows = json.loads(r.stdout)[0]['rows']
                a = rows[0]['asm']
                out[kernel] = {'vgprs': a['vgprs_used'], 'instructions': a['asm_instructions_no_wait_nop_end']}
                print('%-24s %3d VGPRs %4d instructions' % (kernel, a['vgprs_used'], a['asm_instructions_no_wait_nop_end']))
            except (ValueError, KeyError, IndexError):
                print('%-24s not compiled (%s)' % (kernel, (r.stderr.strip().splitlines() or ['no output'])[-1][:100]))
    dst = os.path.join(ROOT, 'benches', 'results', 'aco.json')
    with open(dst, 'w', encoding='utf-8') as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write('\n')
    print('wrote', os.path.relpath(dst, ROOT), '(%d kernels)' % len(out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

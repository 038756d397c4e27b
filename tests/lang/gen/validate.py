#!/usr/bin/env python3
"""Checks tests/lang/*.test and examples/*.test without wavec: split-file sections, the pipeline
YAML (as compiler/src/run/pipeline.rs reads it), result buffers of equal size, bindings that are
unique, and every `register(...)` of the HLSL bound by a DescriptorSets entry of the right kind.

    python3 tests/lang/gen/validate.py [FILE ...]
"""
import glob
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
SIZES = {'Int16': 2, 'UInt16': 2, 'Int32': 4, 'UInt32': 4, 'Int64': 8, 'UInt64': 8, 'Float16': 2,
         'Float32': 4, 'Float64': 8, 'Hex8': 1, 'Hex16': 2, 'Hex32': 4, 'Hex64': 8}
CLASS = {'StructuredBuffer': 't', 'ByteAddressBuffer': 't', 'Buffer': 't', 'RWStructuredBuffer': 'u',
         'RWByteAddressBuffer': 'u', 'RWBuffer': 'u', 'ConstantBuffer': 'b'}


def split(data):
    pre, secs, cur = [], {}, None
    for line in data.split(b'\n'):
        m = re.match(rb'^(#|//)--- (\S+)\s*$', line)
        if m:
            name = m.group(2).decode()
            if name == 'end':
                cur = None
                break
            assert name not in secs, 'section %s twice' % name
            secs[name] = []
            cur = name
            continue
        (secs[cur] if cur else pre).append(line)
    return b'\n'.join(pre), {k: b'\n'.join(v) for k, v in secs.items()}


def decode_source(b):
    if b.startswith(b'\xff\xfe'):
        return b[2:].decode('utf-16-le')
    if b.startswith(b'\xef\xbb\xbf'):
        return b[3:].decode('utf-8')
    try:
        return b.decode('utf-8')
    except UnicodeDecodeError:
        return b.decode('latin-1')


def check_pipeline(name, text, hlsl):
    errs = []
    p = yaml.safe_load(text)
    bufs = {}
    for b in p.get('Buffers', []):
        n = b['Name']
        if n in bufs:
            errs.append('buffer %s twice' % n)
        size = SIZES.get(b['Format'])
        if size is None:
            errs.append('buffer %s: format %s' % (n, b['Format']))
            continue
        n_arr = b.get('ArraySize', 1)
        if 'Data' in b and n_arr > 1:
            # A resource array: ArraySize lists of the same length; sizes are per buffer.
            if len(b['Data']) != n_arr or any(not isinstance(d, list) or len(d) != len(b['Data'][0]) for d in b['Data']):
                errs.append('buffer %s: ArraySize %d needs that many lists of one length' % (n, n_arr))
                continue
            nbytes = len(b['Data'][0]) * size
        elif 'Data' in b:
            nbytes = len(b['Data']) * size * 1
        else:
            nbytes = b['FillSize']
            if nbytes % size:
                errs.append('buffer %s: FillSize %d' % (n, nbytes))
        if 'Stride' in b and nbytes % b['Stride']:
            errs.append('buffer %s: %d bytes is not a multiple of Stride %d' % (n, nbytes, b['Stride']))
        bufs[n] = (b['Format'], nbytes * n_arr, n_arr)
    for r in p.get('Results', []):
        a, e = r['Actual'], r['Expected']
        if a not in bufs or e not in bufs:
            errs.append('result %s: unknown buffer' % r['Result'])
            continue
        if bufs[a][1] != bufs[e][1]:
            errs.append('result %s: %s has %d bytes, %s %d' % (r['Result'], a, bufs[a][1], e, bufs[e][1]))
        if r['Rule'] != 'BufferExact':
            if not bufs[a][0].startswith('Float') or bufs[a][0] != bufs[e][0]:
                errs.append('result %s: float rule on %s/%s' % (r['Result'], bufs[a][0], bufs[e][0]))
            if r['Rule'] == 'BufferFloatULP' and 'ULPT' not in r:
                errs.append('result %s: no ULPT' % r['Result'])
            if r['Rule'] == 'BufferFloatEpsilon' and 'Epsilon' not in r:
                errs.append('result %s: no Epsilon' % r['Result'])
    if not p.get('Results'):
        errs.append('no Results')
    seen = {}
    bound = set()
    for s in p.get('DescriptorSets', []):
        for res in s['Resources']:
            if res['Name'] not in bufs:
                errs.append('resource %s: no such buffer' % res['Name'])
            cls = CLASS.get(res['Kind'])
            if cls is None:
                errs.append('resource %s: kind %s' % (res['Name'], res['Kind']))
                continue
            dx = res['DirectXBinding']
            # A resource array's descriptor covers ArraySize registers.
            for k in range(bufs.get(res['Name'], (0, 0, 1))[2]):
                key = (cls, dx['Register'] + k, dx.get('Space', 0))
                if key in seen:
                    errs.append('two resources at %s' % (key,))
                seen[key] = res['Kind']
            bound.add(res['Name'])
    for r in p.get('Results', []):
        if r['Actual'] not in bound:
            errs.append('result %s: %s is not bound' % (r['Result'], r['Actual']))
    # Every explicit register in the HLSL is bound (resources of an entry the test does not run
    # are allowed to be bound anyway).
    for m in re.finditer(r'\b(RW|Append|Consume)?(StructuredBuffer|ByteAddressBuffer|Buffer|ConstantBuffer)\b[^;{]*?'
                         r':\s*register\(\s*([tub])(\d+)\s*(?:,\s*space(\d+))?\s*\)', hlsl):
        key = (m.group(3), int(m.group(4)), int(m.group(5) or 0))
        if key not in seen:
            errs.append('HLSL register %s%d space%d is not bound' % key)
    for m in re.finditer(r'\bcbuffer\s+\w+\s*:\s*register\(\s*b(\d+)\s*(?:,\s*space(\d+))?\s*\)', hlsl):
        key = ('b', int(m.group(1)), int(m.group(2) or 0))
        if key not in seen:
            errs.append('HLSL cbuffer register b%d space%d is not bound' % key[1:])
    nt = re.findall(r'numthreads\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)', hlsl)
    for x, y, z in nt:
        if int(x) * int(y) * int(z) > 1024:
            errs.append('numthreads(%s, %s, %s) > 1024' % (x, y, z))
    return errs


def check(path):
    data = open(path, 'rb').read()
    pre, secs = split(data)
    errs = []
    # The source is source.hlsl, or a Unity kernel.compute (compiled with HLSL 2018 rules).
    src = 'source.hlsl' if 'source.hlsl' in secs else next((n for n in secs if n.endswith('.compute')), None)
    if src is None:
        errs.append('no source.hlsl')
    if 'pipeline.yaml' not in secs:
        errs.append('no pipeline.yaml')
    if errs:
        return errs
    if b'RUN:' not in pre and b'Generated by' in pre:
        errs.append('no RUN line')
    hlsl = decode_source(secs[src])
    for name, body in secs.items():
        if name.endswith('.hlsli'):
            hlsl += '\n' + decode_source(body)
    try:
        errs += check_pipeline(path, secs['pipeline.yaml'].decode(), hlsl)
    except Exception as e:  # noqa: BLE001
        errs.append('pipeline: %r' % e)
    return errs


def check_pair(yaml_path):
    """A pipeline.yaml next to its source.hlsl (tests that cannot be one UTF-8 file)."""
    src = open(os.path.join(os.path.dirname(yaml_path), 'source.hlsl'), 'rb').read()
    try:
        return check_pipeline(yaml_path, open(yaml_path).read(), decode_source(src))
    except Exception as e:  # noqa: BLE001
        return ['pipeline: %r' % e]


def main(argv):
    files = argv or sorted(glob.glob(os.path.join(ROOT, 'tests', 'lang', '*.test')) +
                           glob.glob(os.path.join(ROOT, 'tests', 'lang', '*', 'pipeline.yaml')) +
                           glob.glob(os.path.join(ROOT, 'examples', '*.test')) +
                           glob.glob(os.path.join(ROOT, 'examples', 'seeds', '*.test')))
    bad = 0
    for f in files:
        errs = check_pair(f) if f.endswith('pipeline.yaml') else check(f)
        for e in errs:
            print('%s: %s' % (os.path.relpath(f, ROOT), e))
        bad += bool(errs)
    print('%d files, %d with problems' % (len(files), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Writes tests/corpus/half_pack.test: a half-heavy loop for 16-bit packing, with
expected buffers from Python's half rounding (struct "e") after every operation.
Run from the repository root: python3 tests/corpus/gen/half_pack.py tests/corpus/half_pack.test"""
import struct, random
def h(x): return struct.unpack('<e', struct.pack('<e', x))[0]
def hb(x): return struct.unpack('<H', struct.pack('<e', x))[0]
random.seed(16)
N = 64
inp = [h(random.randint(0, 32) / 16.0) for _ in range(N * 4)]
out, cnt = [], []
for i in range(N):
    a, b, c, d = inp[i*4:i*4+4]
    s, p, q = 0.0, 1.0, h(a - d)
    n, m = 0, -3
    for k in range(4):
        s = h(s + h(a * b))
        p = h(p * h(c - d))
        q = h(h(q * 0.5) + h(b * c))
        a = h(a + 0.25)
        if a > b:
            n = n + 1
        m = ((m * 3 + n) + 0x8000) % 0x10000 - 0x8000
    out += [s, p, q, h(a * d)]
    cnt += [n, m]
src = r'''// 16-bit packing: half and int16_t values live across a loop that updates
// them (multiply-adds, differences, a compare), so halves are carried around
// the loop in register halves; results go out as half and int16_t.
StructuredBuffer<half> In : register(t0);
RWStructuredBuffer<half> Out : register(u0);
RWStructuredBuffer<int16_t> Count : register(u1);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    half a = In[i * 4 + 0];
    half b = In[i * 4 + 1];
    half c = In[i * 4 + 2];
    half d = In[i * 4 + 3];
    half s = 0.0h;
    half p = 1.0h;
    half q = a - d;
    int16_t n = 0;
    int16_t m = -3;
    [loop]
    for (uint k = 0; k < 4; k++) {
        s = s + a * b;
        p = p * (c - d);
        q = q * 0.5h + b * c;
        a = a + 0.25h;
        if (a > b) {
            n = n + 1;
        }
        m = m * 3 + n;
    }
    Out[i * 4 + 0] = s;
    Out[i * 4 + 1] = p;
    Out[i * 4 + 2] = q;
    Out[i * 4 + 3] = a * d;
    Count[i * 2 + 0] = n;
    Count[i * 2 + 1] = m;
}
'''
def hexes(xs): return ', '.join('0x%04x' % hb(x) for x in xs)
def ints(xs): return ', '.join(str(x) for x in xs)
t = '''# 16-bit packing (pack16): a loop carrying five half values and two int16_t
# counters, two 16-bit values per register on `wave` (halves, hadd/hmul), with
# bfi packing under pressure on wave-0.1.2. Expected buffers from
# tests/corpus/gen/half_pack.py (Python's half rounding after every operation).
#
# RUN: split-file %s %t
# RUN: %dxc_target -enable-16bit-types -T cs_6_2 -Fo %t.o %t/source.hlsl
# RUN: %offloader %t/pipeline.yaml %t.o

#--- source.hlsl
''' + src + '''#--- pipeline.yaml
---
Shaders:
  - Stage: Compute
    Entry: main
DispatchParameters: { DispatchGroupCount: [2, 1, 1] }
Buffers:
  - Name: In
    Format: Float16
    Stride: 2
    Data: [ ''' + hexes(inp) + ''' ]
  - Name: Out
    Format: Float16
    Stride: 2
    FillSize: ''' + str(N * 4 * 2) + '''
  - Name: ExpectedOut
    Format: Float16
    Stride: 2
    Data: [ ''' + hexes(out) + ''' ]
  - Name: Count
    Format: Int16
    Stride: 2
    FillSize: ''' + str(N * 2 * 2) + '''
  - Name: ExpectedCount
    Format: Int16
    Stride: 2
    Data: [ ''' + ints(cnt) + ''' ]
Results:
  - Result: Out
    Rule: BufferExact
    Actual: Out
    Expected: ExpectedOut
  - Result: Count
    Rule: BufferExact
    Actual: Count
    Expected: ExpectedCount
DescriptorSets:
  - Resources:
    - Name: In
      Kind: StructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
      VulkanBinding: { Binding: 0 }
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
      VulkanBinding: { Binding: 1 }
    - Name: Count
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 1, Space: 0 }
      VulkanBinding: { Binding: 2 }
...
#--- end
'''
import sys
open(sys.argv[1], 'w').write(t)

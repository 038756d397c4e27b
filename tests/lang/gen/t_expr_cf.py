"""Items 7 and 8 of the language issue: expressions with effects, control flow."""
from lib import T, SB, RWSB, CB, f32, i32, u32, idiv, imod, fadd, fmul, Rng

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def expr_effects():
    hlsl = r'''
// Expressions with side effects: buf[n++] = x, prefix/postfix ++/-- inside expressions,
// assignment and compound assignment as values, the comma operator, chained assignment, calls
// with out/inout arguments inside expressions, compound assignment on buffer elements, and a
// compaction loop with Out[base + cnt++] = v.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

int bump(inout int c) {
  return c++;                 // returns the old value
}

int divmod(int a, int b, out int rem) {
  rem = a % b;
  return a / b;
}

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint n = i * 24;
  int x = In[i];
  Out[n++] = x;
  Out[n++] = x * 2;
  Out[++n] = x * 3;            // skips one element, which keeps its initial value
  n++;
  int a = x;
  int b = a++ + 10;
  int c = --a * 2;
  int d = (a += 5) * 2;
  int e = (a -= 2, a * a);
  int f = 0;
  int g = (f++, f++, f);
  int h = bump(f) * 10 + f;    // left operand first (DXC): bump sees 2 and leaves 3
  int y;
  int z = (y = x + 1) * 2;
  int p, q, r;
  p = q = r = x - 1;
  int rem;
  int dm = divmod(x, 7, rem) * 100;
  dm += rem;
  Out[n++] = b;
  Out[n++] = c;
  Out[n++] = d;
  Out[n++] = e;
  Out[n++] = g;
  Out[n++] = h;
  Out[n++] = z + y;
  Out[n++] = p + q * 2 + r * 3;
  Out[n++] = dm;
  Out[n++] = a;
  Out[n++] = f;
  Out[n] = 5;
  Out[n] += x;
  Out[n] <<= 2;
  Out[n] ^= 0xFF;
  n++;
  uint cnt = 0;
  for (uint j = 0; j < 8; ++j)
    if (In[j] > x)
      Out[n + 1 + cnt++] = In[j];
  Out[n] = (int)cnt;
}
'''
    xs = [5, -12, 40, 0, 17, -3, 99, 8]
    init = -7
    out = [init] * (8 * 24)
    for i, x in enumerate(xs):
        base = i * 24
        out[base] = x
        out[base + 1] = x * 2
        out[base + 3] = x * 3
        b = x + 10
        c = 2 * x
        d = 2 * x + 10
        e = (x + 3) * (x + 3)
        g = 2
        h = 23
        z = 2 * x + 2
        y = x + 1
        pqr = (x - 1) * 6
        dm = idiv(x, 7) * 100 + imod(x, 7)
        out[base + 4:base + 15] = [b, c, d, e, g, h, z + y, pqr, dm, x + 3, 3]
        out[base + 15] = i32(((5 + x) << 2) ^ 0xFF)
        big = [v for v in xs if v > x]
        out[base + 16] = len(big)
        out[base + 17:base + 17 + len(big)] = big
    t = T('expr_effects', '''Expressions with effects: Out[n++] = x and Out[++n], ++/-- inside expressions, (a += 5) * 2,
(y = x + 1) * 2, chained p = q = r = ..., comma operator (a -= 2, a * a) and (f++, f++, f), a call
with an inout argument as the left operand of + whose right operand reads the variable (DXC
evaluates the left operand first), a call with an out argument inside an expression, compound
assignments on a buffer element, and a compaction loop writing Out[n + 1 + cnt++].''', hlsl)
    t.buf('In', 'Int32', xs, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0, fill=init)
    t.write()


@test
def expr_short_circuit():
    hlsl = r'''
// HLSL 2021: && || and ?: short-circuit on scalars (a guarded read past the end of the last
// buffer must not happen; guarded calls must not run); and(), or(), select() are element-wise
// and evaluate every operand.
cbuffer Params : register(b0) {
  uint n;
};
RWStructuredBuffer<int> Out : register(u0);
RWStructuredBuffer<int> Calls : register(u1);
StructuredBuffer<int> Data : register(t0);     // n elements, the last buffer in memory

static int calls;
static int na;
static int nb;

bool touch(int v) {
  calls++;
  return v > 0;
}

int bumpA() {
  na++;
  return 1;
}

int bumpB() {
  nb++;
  return 2;
}

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int v = (i < n && Data[i] > 5) ? 1 : 0;
  int w = (i >= n || Data[i] < 0) ? 2 : 3;
  int idx = i < n ? Data[i] : -1;
  int x = (int)i - 12;
  bool t1 = x > 0 && touch(x);
  int c1 = calls;
  bool t2 = x > 0 || touch(-x);
  int c2 = calls;
  bool t3 = touch(x) && touch(x - 5) && touch(x - 10);
  int c3 = calls;
  bool t4 = touch(x + 100) || touch(x);
  int c4 = calls;
  int sel = (x & 1) ? bumpA() : bumpB();
  bool3 p = bool3(x > 0, x > 5, x > 15);
  bool3 q = bool3(x < 10, true, (x & 1) != 0);
  bool3 an = and(p, q);
  bool3 orr = or(p, q);
  int3 s3 = select(p, int3(1, 2, 3), int3(-1, -2, -3));
  float sf = select(x > 5, 1.5f, -2.5f);
  bool t5 = and(x > 100, touch(x));
  int c5 = calls;
  uint o = i * 10;
  Out[o + 0] = v;
  Out[o + 1] = w;
  Out[o + 2] = idx;
  Out[o + 3] = (t1 ? 1 : 0) | (t2 ? 2 : 0) | (t3 ? 4 : 0) | (t4 ? 8 : 0) | (t5 ? 16 : 0);
  Out[o + 4] = sel;
  Out[o + 5] = (an.x ? 1 : 0) | (an.y ? 2 : 0) | (an.z ? 4 : 0) | (orr.x ? 8 : 0) | (orr.y ? 16 : 0) | (orr.z ? 32 : 0);
  Out[o + 6] = s3.x * 100 + s3.y * 10 + s3.z;
  Out[o + 7] = (int)(sf * 2);
  Out[o + 8] = na * 10 + nb;
  Out[o + 9] = 0;
  Calls[i * 5 + 0] = c1;
  Calls[i * 5 + 1] = c2;
  Calls[i * 5 + 2] = c3;
  Calls[i * 5 + 3] = c4;
  Calls[i * 5 + 4] = c5;
}
'''
    n = 24
    r = Rng(31)
    data = [r.int(-10, 20) for _ in range(n)]
    out, calls_out = [], []
    for i in range(32):
        v = 1 if i < n and data[i] > 5 else 0
        w = 2 if i >= n or data[i] < 0 else 3
        idx = data[i] if i < n else -1
        x = i - 12
        calls = 0

        def touch(val):
            nonlocal calls
            calls += 1
            return val > 0
        t1 = x > 0 and touch(x)
        c1 = calls
        t2 = x > 0 or touch(-x)
        c2 = calls
        t3 = touch(x) and touch(x - 5) and touch(x - 10)
        c3 = calls
        t4 = touch(x + 100) or touch(x)
        c4 = calls
        na, nb = (1, 0) if x & 1 else (0, 1)
        sel = 1 if x & 1 else 2
        p = [x > 0, x > 5, x > 15]
        q = [x < 10, True, (x & 1) != 0]
        an = [a and b for a, b in zip(p, q)]
        orr = [a or b for a, b in zip(p, q)]
        s3 = [k + 1 if c else -(k + 1) for k, c in enumerate(p)]
        sf = 1.5 if x > 5 else -2.5
        touched = touch(x)
        t5 = (x > 100) and touched
        c5 = calls
        flags = int(bool(t1)) | int(bool(t2)) << 1 | int(bool(t3)) << 2 | int(bool(t4)) << 3 | int(t5) << 4
        bits = sum(int(b) << k for k, b in enumerate(an + orr))
        out += [v, w, idx, flags, sel, bits, s3[0] * 100 + s3[1] * 10 + s3[2], int(sf * 2), na * 10 + nb, 0]
        calls_out += [c1, c2, c3, c4, c5]
    t = T('expr_short_circuit', '''Expressions: && and || and ?: short-circuit (HLSL 2021): Data has n = 24 elements and is the
last buffer in memory, so an unguarded Data[i] for i >= 24 faults; calls to touch() on the
right of && / || and in the untaken arm of ?: do not run (counted in a static). and(), or() and
select() (vector and scalar) are element-wise and evaluate all operands.''', hlsl)
    t.buf('Params', 'UInt32', [n, 0, 0, 0], CB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.out('Calls', 'Int32', calls_out, RWSB, 1)
    t.buf('Data', 'Int32', data, SB, 0)
    t.write()


@test
def cf_switch():
    hlsl = r'''
// switch: break, empty and non-empty fall-through, default in the middle (also falling through),
// a case after default, negative cases, break and continue inside a switch inside a loop, a loop
// with break inside a case, nested switches, a switch on uint.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

int classify(int v) {
  int r = 0;
  switch (v) {
    case 0:
      r = 100;
      break;
    case 1:
    case 2:
      r = 200 + v;
      break;
    case 3:
      r = 300;          // falls through
    case 4:
      r += 40;
      break;
    default:
      r = -1;
      break;
    case -5:
      r = -500;
      break;
    case 9:
      for (int q = 0; q < 10; ++q) {
        if (q == 3)
          break;        // leaves the loop, not the switch
        r += q;
      }
      r += 1000;
      break;
    case 7:
      r = 7;
  }
  return r;
}

int middleDefault(int v) {
  int r = 0;
  switch (v & 7) {
    case 5:
      r = 1;
    default:
      r += 10;          // falls through into case 6
    case 6:
      r += 100;
      break;
    case 0:
      r = -3;
      break;
  }
  return r;
}

int loopSwitch(int v) {
  int acc = 0;
  for (int k = 0; k < 10; ++k) {
    switch ((k + v) % 4) {
      case 0:
        acc += 1;
        break;
      case 1:
        if (k > 4)
          break;        // leaves the switch
        acc += 10;
        break;
      case 2:
        continue;       // next iteration of the for loop: skips acc *= 2
      default:
        acc += 100;
    }
    acc = acc * 2 % 100003;
  }
  return acc;
}

uint nested(uint a, uint b) {
  switch (a % 3) {
    case 0:
      switch (b % 2) {
        case 0: return 1;
        default: return 2;
      }
    case 1:
      return 3;
    default:
      break;
  }
  return 4;
}

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int v = In[i];
  Out[i * 4 + 0] = classify(v);
  Out[i * 4 + 1] = middleDefault(v);
  Out[i * 4 + 2] = loopSwitch(v);
  Out[i * 4 + 3] = (int)nested(i, (uint)v);
}
'''
    vals = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -5, -1, 100, 13, 14, 22]

    def classify(v):
        if v == 0:
            return 100
        if v in (1, 2):
            return 200 + v
        if v == 3:
            return 340
        if v == 4:
            return 40
        if v == -5:
            return -500
        if v == 9:
            return 0 + 1 + 2 + 1000
        if v == 7:
            return 7
        return -1

    def middle(v):
        k = v & 7
        if k == 5:
            return 111
        if k == 6:
            return 100
        if k == 0:
            return -3
        return 110

    def loop_switch(v):
        acc = 0
        for k in range(10):
            s = imod(k + v, 4)
            if s == 0:
                acc += 1
            elif s == 1:
                if not k > 4:
                    acc += 10
            elif s == 2:
                continue
            else:
                acc += 100
            acc = imod(acc * 2, 100003)
        return acc

    def nested(a, b):
        if a % 3 == 0:
            return 1 if b % 2 == 0 else 2
        if a % 3 == 1:
            return 3
        return 4

    out = []
    for i, v in enumerate(vals):
        out += [classify(v), middle(v), loop_switch(v), nested(i, u32(v))]
    t = T('cf_switch', '''Control flow: switch with break, empty and non-empty fall-through, default in the middle falling
through into a case, a case after default, negative case values, a for loop with break inside a
case, break (leaves the switch) and continue (next loop iteration) in a switch inside a loop
(negative % in the selector), nested switches returning from the inner one.''', hlsl)
    t.buf('In', 'Int32', vals, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def cf_loops_depth():
    hlsl = r'''
// break and continue at depths 1 to 3, do-while with continue (jumps to the condition), while
// loops with break in else branches, a for loop with an empty body and complex step.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int skip = In[i] & 7;
  int target = In[i] >> 3;
  int sum = 0;
  int found = -1;
  for (int a = 0; a < 8; ++a) {
    if (a == skip)
      continue;
    for (int b = 0; b < 8; ++b) {
      if (b > a)
        break;
      if ((a + b) % 3 == 0)
        continue;
      for (int c = 0; c < 4; ++c) {
        if (c == 2 && b == 1)
          break;
        if (a * 100 + b * 10 + c == target) {
          found = a * 100 + b * 10 + c;
          continue;
        }
        sum += a * b + c;
      }
    }
  }
  int k = 0;
  int evens = 0;
  do {
    k++;
    if (k & 1)
      continue;
    evens += k;
  } while (k < skip + 3);
  int w = (int)i * 7 + 3;
  int steps = 0;
  while (true) {
    if (w % 2 == 0) {
      w /= 2;
    } else if (w > 1) {
      w = w * 3 + 1;
    } else {
      break;
    }
    if (++steps >= 20)
      break;
  }
  int j;
  for (j = 1; j < 1000; j = j * 3 + (j & 1)) {}
  Out[i * 6 + 0] = sum;
  Out[i * 6 + 1] = found;
  Out[i * 6 + 2] = evens;
  Out[i * 6 + 3] = steps;
  Out[i * 6 + 4] = w;
  Out[i * 6 + 5] = j;
}
'''
    r = Rng(41)
    ins = []
    for i in range(16):
        skip = r.int(0, 7)
        a = r.int(0, 7)
        b = r.int(0, a)
        c = r.int(0, 3)
        target = a * 100 + b * 10 + c if i % 3 else r.int(0, 900)
        ins.append(target * 8 + skip)
    out = []
    for i, v in enumerate(ins):
        skip, target = v & 7, v >> 3
        s, found = 0, -1
        for a in range(8):
            if a == skip:
                continue
            for b in range(8):
                if b > a:
                    break
                if (a + b) % 3 == 0:
                    continue
                for c in range(4):
                    if c == 2 and b == 1:
                        break
                    if a * 100 + b * 10 + c == target:
                        found = a * 100 + b * 10 + c
                        continue
                    s += a * b + c
        k, evens = 0, 0
        while True:
            k += 1
            if not k & 1:
                evens += k
            if not k < skip + 3:
                break
        w, steps = i * 7 + 3, 0
        while True:
            if w % 2 == 0:
                w //= 2
            elif w > 1:
                w = w * 3 + 1
            else:
                break
            steps += 1
            if steps >= 20:
                break
        j = 1
        while j < 1000:
            j = j * 3 + (j & 1)
        out += [s, found, evens, steps, w, j]
    t = T('cf_loops_depth', '''Control flow: continue at depth 1, break and continue at depth 2, break and continue at depth 3
of nested for loops; do-while whose continue goes to the condition; while (true) left by break
from an else branch or after a prefix increment in a condition; a for loop with an empty body.''',
          hlsl)
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def cf_early_return_entry():
    hlsl = r'''
// return from the entry point at depth 1, from a for loop, and from a while loop nested in it;
// threads that return skip the rest of the kernel (their Aux stays untouched).
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);
RWStructuredBuffer<int> Aux : register(u1);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  Out[i] = -1;
  int v = In[i];
  if (v < 0)
    return;
  for (int k = 0; k < 4; ++k) {
    if (v == k * 10) {
      Out[i] = 1000 + k;
      return;
    }
    while (v > 100) {
      v -= 37;
      if (v % 5 == 0) {
        Out[i] = 2000 + v;
        return;
      }
    }
  }
  Out[i] = v;
  Aux[i] = 1;
}
'''
    vals = [-1, 0, 10, 20, 30, 40, 5, 105, 150, 200, 333, 101, 99, -50, 138, 175,
            1000, 7, 20, 212, 249, 286, 323, 360, 397, 434, 471, 508, 545, 582, -2, 30]
    out, aux = [], []
    for v in vals:
        a = 9
        if v < 0:
            out.append(-1)
            aux.append(a)
            continue
        res = None
        for k in range(4):
            if v == k * 10:
                res = 1000 + k
                break
            while v > 100:
                v -= 37
                if v % 5 == 0:
                    res = 2000 + v
                    break
            if res is not None:
                break
        if res is None:
            res, a = v, 1
        out.append(res)
        aux.append(a)
    t = T('cf_early_return_entry', '''Control flow: early return from the entry point at depth 1, from inside a for loop, and from a
while loop inside the for loop (depth 3); only threads that reach the end write Aux.''', hlsl)
    t.buf('In', 'Int32', vals, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.out('Aux', 'Int32', aux, RWSB, 1, fill=9)
    t.write()


@test
def cf_unroll_exits():
    hlsl = r'''
// [unroll] loops with compile-time trip counts (wavec unrolls them): break, continue and
// return inside the unrolled body, a loop variable used after the loop, a step of i <<= 1,
// and an unrolled loop in a helper function with an early return.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

int firstAbove(int limit, uint base) {
  [unroll]
  for (uint k = 0; k < 6; ++k) {
    if (In[base + k] > limit) return (int)k;
  }
  return -1;
}

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint base = (i * 3) % 26;
  int sum = 0;
  uint j;
  [unroll]
  for (j = 0; j < 6; j++) {
    int v = In[base + j];
    if (v < -40) break;
    if ((v & 1) != 0) continue;
    sum += v;
  }
  int prod = 1;
  [unroll(8)]
  for (uint b = 1; b < 64; b <<= 1) prod += (int)b * In[(base + b) & 31];
  Out[i * 4 + 0] = sum;
  Out[i * 4 + 1] = (int)j;
  Out[i * 4 + 2] = prod;
  if (In[i] > 60) return;
  Out[i * 4 + 3] = firstAbove(20, base);
}
'''
    r = Rng(41)
    data = [r.int(-64, 64) for _ in range(32)]
    out = []
    for i in range(32):
        base = (i * 3) % 26
        s, j = 0, 0
        while j < 6:
            v = data[base + j]
            if v < -40:
                break
            if v & 1:
                j += 1
                continue
            s += v
            j += 1
        prod, b = 1, 1
        while b < 64:
            prod = i32(prod + b * data[(base + b) & 31])
            b <<= 1
        fa = -1
        for k in range(6):
            if data[base + k] > 20:
                fa = k
                break
        out += [s, j, prod, 0 if data[i] > 60 else fa]
    t = T('cf_unroll_exits', '''Control flow: [unroll] and [unroll(N)] loops with compile-time trip counts (unrolled) with
break, continue and return in the body, the loop variable read after the loop, a shifting step, and
an unrolled loop with an early return in a helper.''', hlsl, groups=[1])
    t.buf('In', 'Int32', data, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0, fill=0)
    t.write()


@test
def cf_attributes():
    hlsl = r'''
// Loop, branch and switch attributes change nothing in the results: [unroll], [unroll(N)],
// [loop], [fastopt], [allow_uav_condition], [branch], [flatten], [forcecase], [call].
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<uint> Count : register(u0);
RWStructuredBuffer<int> Out : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int v = In[i];
  int acc = 0;
  [unroll]
  for (int a = 0; a < 4; ++a)
    acc += v * a;
  [unroll(2)]
  for (int b = 0; b < v % 5; ++b)
    acc += 3;
  [loop]
  for (int c = 0; c < 3; ++c)
    acc ^= c << 4;
  int w = 0;
  [fastopt]
  while (w < v % 7)
    w++;
  [allow_uav_condition]
  for (uint d = 0; d < Count[0]; ++d)
    acc += (int)d;
  int r;
  [branch]
  if (v > 10)
    r = 1;
  else
    r = 2;
  [flatten]
  if (v & 1)
    r += 10;
  [branch]
  switch (v % 3) {
    case 0: r += 100; break;
    default: r += 200; break;
  }
  [flatten]
  switch (v % 4) {
    case 1: r += 1000; break;
    default: break;
  }
  [forcecase]
  switch (v % 2) {
    case 0: r += 10000; break;
    case 1: r += 20000; break;
  }
  [call]
  switch (v % 5) {
    case 0: r += 100000; break;
    default: r += 200000; break;
  }
  int u = 0;
  [unroll]
  do {
    u += 2;
  } while (u < 6);
  Out[i * 3 + 0] = acc;
  Out[i * 3 + 1] = w * 10 + u;
  Out[i * 3 + 2] = r;
}
'''
    vals = [0, 3, 7, 11, 12, 25, 4, 18]
    cnt = 5
    out = []
    for v in vals:
        acc = sum(v * a for a in range(4))
        acc += 3 * (v % 5)
        for c in range(3):
            acc ^= c << 4
        w = v % 7
        acc += sum(range(cnt))
        r = 1 if v > 10 else 2
        if v & 1:
            r += 10
        r += 100 if v % 3 == 0 else 200
        r += 1000 if v % 4 == 1 else 0
        r += 10000 if v % 2 == 0 else 20000
        r += 100000 if v % 5 == 0 else 200000
        out += [acc, w * 10 + 6, r]
    t = T('cf_attributes', '''Control flow attributes: [unroll], [unroll(2)] on a loop with a data-dependent count, [loop],
[fastopt] while, [allow_uav_condition] with a bound read from a UAV, [branch] and [flatten] on
if and switch, [forcecase] and [call] on switch, [unroll] do-while. Results are as without them.''',
          hlsl)
    t.buf('In', 'Int32', vals, SB, 0)
    t.out('Count', 'UInt32', [cnt], RWSB, 0, init=[cnt])
    t.out('Out', 'Int32', out, RWSB, 1)
    t.write()

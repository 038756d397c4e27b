"""Items 11-13 of the language issue: the preprocessor, source file encodings and line endings,
several kernels per file."""
import os

from lib import T, SB, RWSB, CB, LANG, WRITTEN, u32, i32

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def pp_macros():
    hlsl = r'''
// Object-like and function-like macros: arguments parenthesized by the macro, nested and
// indirect expansion, ## pasting identifiers and numbers, # stringizing (the string is made and
// then dropped by FIRST), #undef and redefinition, a macro continued over lines.
#define N 16
#define SQUARE(x) ((x) * (x))
#define ADD3(a, b, c) ((a) + (b) + (c))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define NESTED(x) SQUARE(ADD3(x, 1, 0))
#define APPLY(f, x) f(x)
#define CAT(a, b) a##b
#define CAT3(a, b, c) a##b##c
#define FIELD(n) val##n
#define FIRST(a, b) a
#define KEEP_FIRST(x) FIRST(x, #x)
#define BAD_SQUARE(x) x * x
#define LONG_SUM(a, b) \
  ((a) +           \
   (b))
#define SCALE 2

static const int val1 = 11;
static const int val2 = 22;

RWStructuredBuffer<int> Out : register(u0);

[numthreads(N / 2, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  int i = (int)id.x;
  uint o = id.x * 14;
  Out[o + 0] = SQUARE(i + 1);
  Out[o + 1] = BAD_SQUARE(i + 1);        // i + 1 * i + 1
  Out[o + 2] = ADD3(i, 2 * i, 3);
  Out[o + 3] = MAX(i, 5);
  Out[o + 4] = NESTED(i);
  Out[o + 5] = APPLY(SQUARE, 3);
  Out[o + 6] = CAT(val, 1) + FIELD(2);
  Out[o + 7] = CAT(0x, FF);
  Out[o + 8] = CAT3(1, 2, 3);
  Out[o + 9] = (int)CAT(7, u);
  Out[o + 10] = KEEP_FIRST(42);
  Out[o + 11] = LONG_SUM(i, 100);
  Out[o + 12] = SCALE;
#undef SCALE
#define SCALE 3
  Out[o + 13] = SCALE * N;
}
'''
    out = []
    for i in range(16):
        out += [(i + 1) ** 2, i + 1 * i + 1, i + 2 * i + 3, max(i, 5), (i + 1) ** 2, 9, 33, 255, 123, 7, 42,
                i + 100, 2, 48]
    t = T('pp_macros', '''Preprocessor: object-like and function-like macros (parenthesized and not), nested and indirect
expansion (APPLY(SQUARE, 3)), ## on identifiers and pp-numbers (0x ## FF, 1 ## 2 ## 3, 7 ## u),
# stringizing inside an expansion, a macro continued with backslashes, #undef and redefinition
between two uses, a macro in [numthreads].''', hlsl, groups=[2])
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def pp_conditionals():
    hlsl = r'''
// #if with full expressions (arithmetic, shifts, comparisons, && || !, ?:, hex and octal,
// negative numbers, undefined identifiers as 0), defined with and without parentheses, #ifdef,
// #ifndef, #elif chains, #else, nesting, skipped groups holding #error and junk.
#define LEVEL 3
#define FEATURE_A
#define ZERO 0

#if LEVEL > 2 && defined(FEATURE_A)
#define R0 1
#else
#define R0 0
#endif

#if (LEVEL * 2 + 1) % 4 == 3 && (LEVEL << 2) == 12
#define R1 1
#else
#define R1 0
#endif

#ifdef FEATURE_B
#define R2 10
#elif LEVEL == 2
#define R2 20
#elif LEVEL == 3 && !defined FEATURE_B
#define R2 30
#else
#define R2 40
#endif

#ifndef FEATURE_B
#define R3 1
#else
#error FEATURE_B is not defined, so this line is skipped
#endif

#if LEVEL >= 3 ? ZERO : 1
#define R4 1
#else
#define R4 2
#endif

#if 0x10 == 16 && 010 == 8 && -1 < 0 && (5 / 2) == 2 && (-7 % 3) == -1
#define R5 1
#else
#define R5 0
#endif

#if UNDEFINED_NAME + 1 == 1 && !defined(UNDEFINED_NAME)
#define R6 1
#else
#define R6 0
#endif

#if 0
#error skipped
this is not HLSL at all and must be skipped
#if 1
#error nested in a skipped group: also skipped
#endif
#elif defined(FEATURE_A)
  #if LEVEL == 3
    #define R7 7
  #else
    #define R7 8
  #endif
#endif

#define R8 (defined(FEATURE_A) + 0)

RWStructuredBuffer<int> Out : register(u0);

[numthreads(1, 1, 1)]
void main() {
  Out[0] = R0;
  Out[1] = R1;
  Out[2] = R2;
  Out[3] = R3;
  Out[4] = R4;
  Out[5] = R5;
  Out[6] = R6;
  Out[7] = R7;
#if R8
  Out[8] = 1;
#else
  Out[8] = 2;
#endif
}
'''
    t = T('pp_conditionals', '''Preprocessor: #if with arithmetic, %, <<, comparisons, && || !, ?:, hex and octal, negative
numbers, integer / and %, undefined identifiers (0), defined(X) and defined X, #ifdef/#ifndef, an
#elif chain, #else, nested conditionals, skipped groups holding #error and non-HLSL text, and a
macro expanding to defined(...) used in #if (accepted by DXC's clang preprocessor).''', hlsl)
    t.out('Out', 'Int32', [1, 1, 30, 1, 2, 1, 1, 7, 1], RWSB, 0)
    t.write()


@test
def pp_include():
    hlsl = r'''
// #include "..." (relative to the including file, nested, twice with #pragma once) and
// #include <...> (through the include path: -I names the test's directory), twice with an
// include guard.
#include "common.hlsli"
#include "common.hlsli"
#include <config.hlsli>
#include <config.hlsli>

RWStructuredBuffer<int> Out : register(u0);

[numthreads(CONFIG_GROUP, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  int i = (int)id.x;
  Out[id.x * 3] = commonTwice(i) + DETAIL_OFFSET;
  Out[id.x * 3 + 1] = configScale(i);
  Out[id.x * 3 + 2] = INCLUDED_COMMON * 10 + INCLUDED_CONFIG;
}
'''
    common = r'''
// common.hlsli: included twice, compiled once.
#pragma once
#include "detail.hlsli"
#define INCLUDED_COMMON 1
int commonTwice(int x) {
  return detailAdd(x, x);
}
'''
    detail = r'''
// detail.hlsli: included from common.hlsli by a path relative to it.
#define DETAIL_OFFSET 1000
int detailAdd(int a, int b) {
  return a + b;
}
'''
    config = r'''
// config.hlsli: found through the include path; a classic include guard.
#ifndef CONFIG_HLSLI
#define CONFIG_HLSLI
#define CONFIG_GROUP 8
#define INCLUDED_CONFIG 2
int configScale(int x) {
  return x * 7;
}
#endif
'''
    out = []
    for i in range(16):
        out += [2 * i + 1000, 7 * i, 12]
    t = T('pp_include', '''Preprocessor: #include "common.hlsli" twice (#pragma once), a nested #include "detail.hlsli",
#include <config.hlsli> twice (include guard) through -I; the headers are extra split-file sections
next to source.hlsl, and a macro from a header sizes [numthreads].''', hlsl, groups=[2],
          sections=[('common.hlsli', common), ('detail.hlsli', detail), ('config.hlsli', config)],
          run='-T cs_6_0 -I %t')
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def pp_defines():
    hlsl = r'''
// Macros from the command line: -D NAME=VALUE and -D NAME (defined as 1), used in
// [numthreads(...)] through an arithmetic macro and in #if / #ifdef.
#ifndef GROUP
#error GROUP must be given with -D GROUP=...
#endif
#define HALF_GROUP (GROUP / 2)

RWStructuredBuffer<int> Out : register(u0);

[numthreads(HALF_GROUP * 2, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 gid : SV_GroupID) {
  int v = (int)id.x * SCALE;
#ifdef USE_OFFSET
#if USE_OFFSET == 1
  v += 1000;
#endif
#else
  v -= 1000;
#endif
  Out[id.x] = v + (int)gid.x * 100000;
}
'''
    group, scale = 32, 3
    out = [i * scale + 1000 + (i // group) * 100000 for i in range(2 * group)]
    t = T('pp_defines', '''Preprocessor: -D GROUP=32 -D SCALE=3 -D USE_OFFSET on the command line (RUN line): GROUP sizes
[numthreads] through #define HALF_GROUP (GROUP / 2), SCALE is used in code, USE_OFFSET is
defined as 1; #error if GROUP were missing.''', hlsl, groups=[2], run='-T cs_6_0 -D GROUP=32 -D SCALE=3 -D USE_OFFSET')
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def pp_line_pragma():
    hlsl = r'''
// #line renumbers the following lines (__LINE__ sees it), unknown and known pragmas are
// accepted, a #define inside a function body, #error only in a skipped group.
RWStructuredBuffer<int> Out : register(u0);

#pragma warning(disable : 3557)
#pragma some_vendor_pragma 1 2 3

[numthreads(1, 1, 1)]
void main() {
#define LOCAL_MACRO 5
#line 500
  Out[0] = __LINE__;
  Out[1] = __LINE__ + LOCAL_MACRO;
#line 7 "renamed.hlsl"
  Out[2] = __LINE__;
#if defined(NEVER_DEFINED)
#error not reached
#endif
}
'''
    t = T('pp_line_pragma', '''Preprocessor: #line 500 and #line 7 "file" (seen through __LINE__), #pragma warning and an unknown
#pragma (ignored), a #define inside a function, #error in a skipped group.''', hlsl)
    t.out('Out', 'Int32', [500, 506, 7], RWSB, 0)
    t.write()


# ---------------------------------------------------------------------------
# 12. Source files

SIMPLE = '''// {comment}
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

#define TWICE(x) \\
  ((x) * 2)

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {{
  // {comment2}
  Out[i] = TWICE(In[i]) + {k};
}}
'''


@test
def src_crlf_latin1():
    text = SIMPLE.format(comment='CRLF line endings and a Latin-1 byte in a comment: caf\xe9.',
                         comment2='r\xe9sum\xe9 (Latin-1, not UTF-8)', k=7)
    src = text.replace('\n', '\r\n').encode('latin-1')
    assert b'\xe9' in src and b'\\\r\n' in src
    ins = [3, -4, 5, 100, 0, 1, -1, 8]
    t = T('src_crlf_latin1', '''Source files: the source section has CRLF line endings (also after a backslash that continues a
#define) and Latin-1 bytes (0xe9, not valid UTF-8) in comments.''', None, source_bytes=src)
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Int32', [2 * x + 7 for x in ins], RWSB, 0)
    t.write()


@test
def src_utf8_bom():
    text = SIMPLE.format(comment='UTF-8 with a byte order mark; comments: π ≈ 3.14159, naïve, 日本語, ∑.',
                         comment2='émoji in a comment: ✓', k=11)
    src = b'\xef\xbb\xbf' + text.encode('utf-8')
    ins = [3, -4, 5, 100, 0, 1, -1, 8]
    t = T('src_utf8_bom', '''Source files: the source section starts with a UTF-8 byte order mark (EF BB BF) and has UTF-8
characters beyond ASCII in comments.''', None, source_bytes=src)
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Int32', [2 * x + 11 for x in ins], RWSB, 0)
    t.write()


@test
def src_utf16_bom():
    """UTF-16 cannot share a file with the UTF-8 pipeline, so this test is a pair of files in
    tests/lang/src_utf16_bom/, run as: wavec run pipeline.yaml source.hlsl."""
    text = SIMPLE.format(comment='UTF-16 little-endian with a byte order mark; a comment: ü, €.',
                         comment2='ßtraße', k=13)
    ins = [3, -4, 5, 100, 0, 1, -1, 8]
    d = os.path.join(LANG, 'src_utf16_bom')
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'source.hlsl'), 'wb') as f:
        f.write(b'\xff\xfe' + text.replace('\n', '\r\n').encode('utf-16-le'))
    t = T('src_utf16_bom', '', text)
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Int32', [2 * x + 13 for x in ins], RWSB, 0)
    tmp = t.write()
    # keep only the pipeline section of what T wrote, as src_utf16_bom/pipeline.yaml
    data = open(tmp, 'rb').read().decode('utf-8')
    os.remove(tmp)
    WRITTEN.remove(tmp)
    yaml = data.split('#--- pipeline.yaml\n', 1)[1].split('#--- end\n', 1)[0]
    head = ('# Source files: source.hlsl next to this file is UTF-16 little-endian with a byte order mark\n'
            '# (FF FE) and CRLF line endings. Run: wavec run tests/lang/src_utf16_bom/pipeline.yaml\n'
            '#   tests/lang/src_utf16_bom/source.hlsl\n'
            '# Generated by tests/lang/gen/gen_lang.py, which computes the expected buffers.\n')
    path = os.path.join(d, 'pipeline.yaml')
    with open(path, 'w') as f:
        f.write(head + yaml)
    WRITTEN.append(path)
    WRITTEN.append(os.path.join(d, 'source.hlsl'))


# ---------------------------------------------------------------------------
# 13. Several kernels per file

MULTI = r'''
// Three kernels sharing resources and a helper; -E (and the pipeline's Entry) picks one. They
// have different group sizes, so running the wrong one also runs the wrong number of threads.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

int helper(int x) {
  return x * 3;
}

[numthreads(8, 1, 1)]
void First(uint i : SV_DispatchThreadID) {
  Out[i] = helper(In[i]);
}

[numthreads(4, 1, 1)]
void Second(uint i : SV_DispatchThreadID) {
  Out[i] = helper(In[i]) + 1000 + (int)i;
}

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  Out[i] = -In[i];
}
'''


@test
def entry_select():
    ins = [1, 2, 3, 4, 5, 6, 7, 8]
    t = T('entry_select', '''Several kernels per file: First, Second and main; -E Second (and Entry: Second) runs Second, with
its own [numthreads(4, 1, 1)]: 2 groups of 4 threads. Out is the last buffer, so running a
kernel with 8 threads per group would write past it.''', MULTI, groups=[2], entry='Second',
          run='-T cs_6_0 -E Second')
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Int32', [3 * x + 1000 + i for i, x in enumerate(ins)], RWSB, 0)
    t.write()


@test
def entry_main_default():
    ins = [1, 2, 3, 4, 5, 6, 7, 8]
    t = T('entry_main_default', '''Several kernels per file, no -E: like dxc, the entry point is main (Entry: main).''', MULTI,
          entry='main')
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Int32', [-x for x in ins], RWSB, 0)
    t.write()


@test
def entry_single_default():
    hlsl = r'''
// One [numthreads] function that is not called main, next to ordinary functions: without -E and
// without a pipeline Entry, wavec runs it (dxc would need -E CSMain).
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

int twice(int x) {
  return 2 * x;
}

int plusOne(int x) {
  return x + 1;
}

[numthreads(8, 1, 1)]
void CSMain(uint i : SV_DispatchThreadID) {
  Out[i] = plusOne(twice(In[i]));
}
'''
    ins = [5, -6, 7, 0, 9, 10, -11, 12]
    t = T('entry_single_default', '''Several kernels per file, the other direction: a file with a single [numthreads] entry, CSMain,
and no -E, no Entry in the pipeline: wavec uses the only entry point. (dxc itself defaults to
main and would need -E CSMain; this is wavec's rule from the language issue, item 13.)''', hlsl,
          entry=None)
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Int32', [2 * x + 1 for x in ins], RWSB, 0)
    t.write()

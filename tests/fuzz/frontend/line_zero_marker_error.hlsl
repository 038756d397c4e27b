// Issue 19: the short line marker `# 0` numbering the next line 0, with an
// error spanning two lines there, panicked the diagnostic renderer.
RWStructuredBuffer<int> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
# 0 "generated.hlsl"
    Out[0] = undefined_name +
             1;
}

// The short line marker `# 0 "name"` numbers the next line 0; an error there
// (spanning two lines) renders.
RWStructuredBuffer<int> Out : register(u0);

[numthreads(1, 1, 1)]
void main() {
# 0 "generated.hlsl"
    Out[0] = undefined_name +
             1;
}

RWStructuredBuffer<float> Out : register(u0);
struct Pair { float a; float b; };
float sum(float3 v) { return v.x + v.y + v.z; }
float sum(Pair p) { return p.a + p.b; }
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = sum(float2(1, 2)); }

RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = ddx(i * 0.5); }

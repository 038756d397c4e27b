RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = clamp(i * 0.5, 0.0); }

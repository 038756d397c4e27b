template<typename T> T twice(T x) { return x * 2; }
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = twice(1.5); }

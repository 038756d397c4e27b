RWStructuredBuffer<float> Out : register(u0);
float blend(int a, float b) { return a + b; }
float blend(float a, int b) { return a - b; }
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = blend(i, i); }

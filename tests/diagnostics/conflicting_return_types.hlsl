RWStructuredBuffer<float> Out : register(u0);
float scale(float x);
int scale(float x) { return (int)(x * 2); }
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = scale(i); }

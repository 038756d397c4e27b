RWStructuredBuffer<float> Out : register(u0);
static const float Weights[4] = { 0.25, 0.5, 0.25 };
[numthreads(1, 1, 1)]
void main() { Out[0] = Weights[1]; }

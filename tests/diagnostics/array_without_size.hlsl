RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    float weights[];
    Out[0] = weights[0];
}

struct Counter {
    uint n;
    uint Next() { return n + 1; }
    static uint Start() { return Next(); }
};
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = Counter::Next() + Counter::Start(); }

// Steps for each starting value to reach 1 (Collatz), capped at `limit`:
// a divergent loop with a break, the kind of kernel where lanes finish at
// different times.
cbuffer Config : register(b0) {
    uint limit;
};

StructuredBuffer<uint> Start : register(t0);
RWStructuredBuffer<uint> Steps : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint x = Start[id.x];
    uint steps = 0;
    while (x != 1) {
        if (steps >= limit) {
            break;
        }
        if ((x & 1) == 0) {
            x = x / 2;
        } else {
            x = 3 * x + 1;
        }
        steps++;
    }
    Steps[id.x] = steps;
}

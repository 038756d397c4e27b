struct Particle {
    float3 pos;
    float3 vel;
    void advance(float dt) { pos += vel * dt; }
};
RWStructuredBuffer<Particle> Ps : register(u0);
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Ps[i].pos.x += 1; }

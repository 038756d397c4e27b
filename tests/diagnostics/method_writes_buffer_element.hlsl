struct Particle {
    float3 pos;
    float3 vel;
    void advance(float dt) { pos += vel * dt; }
    float speed() { return length(vel); }
};
RWStructuredBuffer<Particle> Ps : register(u0);
RWStructuredBuffer<float> Speeds : register(u1);
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    Speeds[i] = Ps[i].speed();
    Ps[i].advance(0.1);
}

// Particle update: gravity, a bouncing floor, and a lifetime. Particles live in a
// RWStructuredBuffer of 32-byte structs (float3, float3, float, uint: tightly packed);
// a helper takes the particle inout. Dead particles are left alone; live ones are
// counted with InterlockedAdd.
//
// Compile: wavec examples/particles.hlsl -O
// Run:     wavec run examples/particles.test

#define FLAG_ALIVE   1u
#define FLAG_BOUNCED 2u

struct Particle {
    float3 position;
    float3 velocity;
    float life;          // seconds left
    uint flags;
};

cbuffer FrameParams : register(b0) {
    float g_dt;             // offset 0
    float3 g_gravity;       // offset 4: shares the first 16-byte row with g_dt
    float g_restitution;    // offset 16
    float g_floorY;         // offset 20
    uint g_count;           // offset 24
};

RWStructuredBuffer<uint> AliveCount : register(u1);
RWStructuredBuffer<Particle> Particles : register(u0);

void integrate(inout Particle p, float dt) {
    p.velocity += g_gravity * dt;
    p.position += p.velocity * dt;
    if (p.position.y < g_floorY) {
        p.position.y = g_floorY;
        p.velocity.y = -p.velocity.y * g_restitution;
        p.flags |= FLAG_BOUNCED;
    }
    p.life -= dt;
    if (p.life <= 0.0f) {
        p.flags &= ~FLAG_ALIVE;
    }
}

[numthreads(64, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID) {
    uint i = dispatchId.x;
    if (i >= g_count) {
        return;
    }
    Particle p = Particles[i];
    if ((p.flags & FLAG_ALIVE) == 0) {
        return;
    }
    integrate(p, g_dt);
    Particles[i] = p;
    if (p.flags & FLAG_ALIVE) {
        InterlockedAdd(AliveCount[0], 1);
    }
}

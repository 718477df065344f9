// The scene's weather as a frame sees it (issue 43): the extinction it adds to the link, the
// rain and snow particles the beams sample, and the objects their echoes are labelled with.
// Both backends prepare it the same way (frame_setup.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "internal/beam_pipeline.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {

// The contribution that cannot make an echo, as a share of the threshold: particles, fog
// slabs and spray slabs returning less are left out, and the particles' reach ends where the
// largest returns less.
inline constexpr double kNegligibleShareOfThreshold = 1e-3;

// That contribution [W] for the profile's detector: kNegligibleShareOfThreshold of the
// threshold detector's threshold; 0 for the waveform detector, which ranges on its noise and
// keeps every contribution.
double NegligiblePowerW(const SensorProfile& profile);

// Rain's and snow's extinction coefficients [1/m] (physics/precipitation.h): drops as spheres,
// flakes as discs at random orientations, each with its extinction efficiency.
double RainExtinctionPerM(const RainDescription& rain);
double SnowExtinctionPerM(const SnowDescription& snow);

// The weather's extinction coefficient [1/m] at the profile's wavelength: fog's, rain's and
// snow's summed (Beer-Lambert over each).
double WeatherExtinctionPerM(const SensorProfile& profile, const WeatherDescription& weather);

// The beam's equivalent solid angle [sr]: 1 / integral of p^2 over its angular power density
// p, the solid angle of the top-hat beam whose particles return the same mean squared power.
// A cone: its solid angle; Gaussian spots: from their pairwise overlaps; a table: from its
// cells.
double BeamSolidAngleSr(const SensorProfile& profile);

// Particle slots per sub-ray reserved for this profile in this weather: 0 without rain or
// snow, else as many as fit beside the surfaces (and the window's echo) in kMaxContributions, at
// most kMostParticleSlots. With none (sub_rays x max_surfaces fills the beam), particles take only
// the surface slots a sub-ray leaves unused (AddParticles).
uint32_t ParticleSlots(const SensorProfile& profile, const WeatherDescription& weather);

// The frame's particles (particle_echoes.h) through the weathered `link`; their labels are
// objects first_object, first_object + 1 (rain, then snow), as AppendWeatherObjects adds them.
ParticleView FrameParticles(const SensorProfile& profile, const WeatherDescription& weather,
                            const physics::LinkBudget& link, uint32_t first_object);

// Whether the weather has fog that returns light of its own (its slabs, FogView).
bool FogReturns(const WeatherDescription& weather);

// The frame's fog slabs (fog_echoes.h) through the weathered `link` and the profile's overlap,
// labelled as `object`: from the detector's minimum range out to where a slab returns under
// 1e-3 of the threshold (the waveform detector, whose threshold is not a power: to the
// sub-rays' reach), at most kMaxContributions. None without a fog that returns.
FogView FrameFog(const SensorProfile& profile, const WeatherDescription& weather,
                 const physics::LinkBudget& link, uint32_t object);

// Whether the weather has a cover with a region that scatters light back (its echo).
bool CoverScatters(const WeatherDescription& weather);

// The slot each sub-ray holds for the window's echo: 1 where the cover scatters, else 0.
uint32_t CoverSlots(const WeatherDescription& weather);

// Slots each sub-ray holds for its spray's slabs: without spray 0, else as many as fit beside
// its surfaces and window echo in kMaxContributions, at most kMostSpraySlots (0: the profile
// has no room, refused by CheckWeather).
inline constexpr uint32_t kMostSpraySlots = 4;
uint32_t SpraySlots(const SensorProfile& profile, const WeatherDescription& weather);

// The frame's window (physics/cover.h), its angles in radians; its echoes labelled as
// `object`, at the cover's window range (the waveform detector: at its internal reflection's
// delay, which the window's echo adds to). No regions without a cover.
physics::CoverView FrameCover(const SensorProfile& profile, const WeatherDescription& weather,
                              uint32_t object);

// Appends the spray's plumes (one per spraying vehicle, SpraySources), the rain's, the
// snow's, the fog's and the cover's object (in that order, those present; the fog's where it
// returns, the cover's where it scatters) to the scene's: no material, their semantic class,
// instances after the scene's largest.
void AppendWeatherObjects(const Scene& scene, double wavelength_nm, std::vector<ObjectInfo>& out);

// Wets the responses of the objects whose material the weather names (WetDescription): the
// film's index and WetDiffuseGain at each material's reflectance. `objects` in scene order.
void WetObjects(const Scene& scene, double wavelength_nm, std::vector<ObjectInfo>& objects);

// How many objects AppendWeatherObjects adds after the spray's plumes (those of fixed number,
// last among the frame's objects).
uint32_t WeatherObjectCount(const WeatherDescription& weather);

}  // namespace lt

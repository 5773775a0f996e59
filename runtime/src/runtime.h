//===- runtime.h - collc runtime internals ----------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The objects behind the opaque handles: a loaded module (its manifest and
/// images), a communicator (its device context, the workspace of every
/// kernel, the peers' mapped pointers). Not installed.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_RUNTIME_SRC_RUNTIME_H
#define COLLC_RUNTIME_SRC_RUNTIME_H

#include "checks.h"
#include "manifest.h"

#include "collc/collc.h"
#include "collc/device/snac/abi.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

// The C API's enums are the vocabulary's (collc/vocab.h), value for value.
static_assert(collcNumOps == collc::vocab::EnumCount<collc::vocab::RedOp>::value &&
                  (int)collcSum == (int)collc::vocab::RedOp::Sum &&
                  (int)collcMax == (int)collc::vocab::RedOp::Max &&
                  (int)collcMin == (int)collc::vocab::RedOp::Min &&
                  (int)collcAvg == (int)collc::vocab::RedOp::Avg,
              "collcRedOp_t must match vocab::RedOp");
static_assert(collcNumTypes == collc::vocab::EnumCount<collc::vocab::ElemType>::value &&
                  (int)collcBfloat16 == (int)collc::vocab::ElemType::BF16 &&
                  (int)collcFloat16 == (int)collc::vocab::ElemType::F16 &&
                  (int)collcFloat32 == (int)collc::vocab::ElemType::F32 &&
                  (int)collcFloat8e4m3 == (int)collc::vocab::ElemType::F8E4M3 &&
                  (int)collcFloat8e5m2 == (int)collc::vocab::ElemType::F8E5M2,
              "collcDataType_t must match vocab::ElemType");

/// A loaded module: its manifest (manifest.h) with the images decoded.
struct collcModule : collc::Manifest {};

namespace collc {

/// The device memory one kernel needs on one rank, and the peers' mappings.
struct Workspace {
  const KernelInfo *kernel = nullptr;
  CUfunction function = nullptr;
  CUdeviceptr staging = 0, inter = 0, events = 0, state = 0;
  /// Device arrays of worldSize pointers: every rank's staging,
  /// intermediate and event words, as this rank maps them.
  CUdeviceptr stagingPeers = 0, interPeers = 0, eventPeers = 0;
  /// Peer mappings this rank opened (closed on destroy).
  std::vector<CUdeviceptr> opened;
  /// This kernel's error record in host-mapped memory.
  volatile unsigned long long *error = nullptr;
  CUdeviceptr errorDevice = 0;
  /// A program's receive buffers, every rank's as this rank maps them (its
  /// second kernel parameter, by value). A program's own receive buffer is
  /// `staging` (exchanged like one) and its per-CTA call counters `state`.
  std::vector<CUdeviceptr> rxPeers;
  /// The grid every launch of this kernel uses: the manifest's for a v1
  /// kernel; a program's after residency admission (admitPrograms), the
  /// same on every rank and fixed for the communicator's life (its CTAs'
  /// call counters and flag segments depend on it).
  int grid = 0;
  /// CTAs of this kernel the device keeps resident at once (its occupancy
  /// per SM x SMs).
  long long resident = 0;
};

/// What `COLLC_FORCE_VARIANT` asks for (docs/runtime.md): every kernel
/// (unset), the v1 kernels only ("v1"), or one program ("variant:encoding").
struct ForceVariant {
  enum Kind { None, V1, Program } kind = None;
  std::string variant;
  int encoding = 0;
  /// "<variant>:<encoding>:staged": never its zero-copy twin.
  bool staged = false;
};

/// Parses a COLLC_FORCE_VARIANT value (NULL or "" is None); a malformed one
/// fails with a message that names the accepted forms.
COLLC_API collcResult_t parseForceVariant(const char *text, ForceVariant &out);

/// What a communicator created with `config` (may be NULL) forces: its
/// `forceVariant` when the caller's struct has that field and sets it, else
/// COLLC_FORCE_VARIANT; a malformed value fails naming where it came from.
COLLC_API collcResult_t forceVariantOf(const collcConfig_t *config,
                                       ForceVariant &out);

/// The kernels one (collective, element type) can run on a communicator,
/// found at creation so that a call compares no strings and allocates
/// nothing to pick one: the v1 kernel (if any) and the programs in manifest
/// order (those COLLC_FORCE_VARIANT allows).
struct Route {
  Workspace *v1 = nullptr;
  std::vector<Workspace *> programs;
  /// The module's policy table for this route (Manifest::policyFor at the
  /// communicator's target and rank count), when it has an entry and no
  /// variant is forced: `upto` the interval's inclusive top, `v1` or the
  /// route's programs of the chosen variant in manifest order.
  struct Choice {
    long long upto = 0;
    bool v1 = false;
    std::vector<Workspace *> programs;
  };
  /// By the call's buffers: [0] ordinary, [1] registered (every buffer of
  /// the call in a registered window); [1] empty: [0] serves both.
  std::vector<Choice> table[2];
  /// Whether `programs` holds an in-switch program (bound communicators
  /// only): pickProgram looks for one first, and only then.
  bool inSwitch = false;
};

/// The bytes that choose a call's program, from its size matrix (abi.h):
/// the same on every rank, or the ranks could run different kernels and
/// never meet. A rank's input bytes where every rank's are equal
/// (fixed-size calls, the rows of a reduction), the largest rank's for a
/// packed V input, whose sizes every rank knows; -1 for a V transposing
/// copy, whose other rows a rank does not know (only a program whose ranks
/// agree on its steps serves it, else the v1 kernel).
COLLC_API long long selectionBytes(const CollectiveInfo &c,
                                   const long long *sizes, int n, int r,
                                   int eb);

/// The program a call runs, or NULL: the call runs the v1 kernel. With a
/// policy table entry (Route::table) and a known size: the variant of the
/// first interval whose top is at least `key`, its first program whose
/// band holds `key` and whose registered buffers (a zero-copy program's,
/// ProgramInfo::registered) are among the call's `registered` ones (a
/// handful of comparisons: the table has a few intervals). Otherwise, or
/// where that program cannot serve the call: the first program of `route`
/// in manifest order whose band holds `key` (selectionBytes; a key of -1,
/// no size every rank knows: the first whose ranks agree on its steps,
/// ProgramInfo::agree, which serves every size) with those buffers.
COLLC_API Workspace *pickProgram(const Route &route, long long key,
                                 unsigned registered = 0);

/// Residency admission of a program (docs/runtime.md): a one-shot program
/// needs every rank's grid resident at once (CTA i of a rank waits for
/// CTA i of every peer), so the ranks sharing one device split what it
/// keeps resident (`resident` CTAs of this kernel), two grids per rank with
/// programmatic dependent launch (the next call's grid starts early and
/// waits on the device); ranks sharing a device that would fill nine tenths
/// of it leave one more grid's worth free (measured faster). The most CTAs a rank may launch, at most
/// `manifestGrid`; 0 when not even one per rank fits.
COLLC_API int admittedGrid(int manifestGrid, long long resident, int sharing,
                           bool pdl);

/// Sets the grid of every program of `comm` from admittedGrid, with
/// `sharing` ranks of the communicator on its device (this rank included).
/// The ranks then agree on the least (every rank must launch the same grid)
/// and call checkAdmitted.
COLLC_API void admitPrograms(collcComm_t comm, int sharing);

/// Refuses the communicator when a program's agreed grid is 0: not even one
/// CTA per rank fits the device (the message names the kernel, the device's
/// capacity and the ranks sharing it).
COLLC_API collcResult_t checkAdmitted(collcComm_t comm, int sharing);

//===----------------------------------------------------------------------===//
// Registered buffers (register.cpp, docs/runtime.md "Registered buffers")
//===----------------------------------------------------------------------===//

/// Windows one communicator can hold at once: the rows of its device table.
constexpr int kMaxWindows = COLLC_MAX_WINDOWS;
static_assert(kMaxWindows == 64, "the window table's rows (abi.h)");
/// A registered pointer as the launch path passes it to the device:
/// (slot << kWindowShift) | (ptr - the rank's registered buff).
constexpr int kWindowShift = COLLC_WINDOW_SHIFT;
/// The window table's last row, all 0: a where word in it is an address
/// (abi.h COLLC_DIRECT_WINDOW), for a clique's direct buffers.
constexpr int kDirectWindow = COLLC_DIRECT_WINDOW;
static_assert(kDirectWindow == kMaxWindows, "the row after the windows");

/// The graphs still holding a window: one CUDA user object per (window,
/// captured graph) owns a reference to it and decrements `live` from its
/// destructor, on a driver thread, possibly after the communicator is gone.
struct GraphCount {
  std::atomic<int> live{0};
};

/// What the ranks of one process share about one window (one-process
/// communicators: every rank's Window points to one; one process per rank:
/// each has its own). Lives until the last rank's window of it is released.
struct WindowShared {
  /// The window's slot (the same on every rank) and every rank's
  /// registered range (one-process: the plain pointers; filled as the
  /// ranks register).
  int slot = -1;
  std::vector<CUdeviceptr> buffs;
  std::vector<unsigned long long> bytes;
  /// Per rank: 0 not yet registered, 1 registered, 2 deregistered (or its
  /// communicator destroyed).
  std::vector<char> state;
  /// Every rank registered it and none deregistered it: findWindow may
  /// hand it to the launch path.
  std::atomic<bool> complete{false};
  std::shared_ptr<GraphCount> graphs = std::make_shared<GraphCount>();
  /// Guards `tracked` and `captures` (noteWindowUse may run on one rank's
  /// thread while another deregisters).
  std::mutex mutex;
  /// The last eager use of the window on each stream: an event recorded
  /// after it (created in the stream's context; destroyed when its rank
  /// lets the window go, while that context is surely alive).
  struct Tracked {
    unsigned long long stream = 0; ///< cuStreamGetId
    int rank = 0;                  ///< whose stream
    CUcontext context = nullptr;   ///< the event's (and stream's)
    CUevent event = nullptr;
  };
  std::vector<Tracked> tracked;
  /// Capture sequences (cuStreamGetCaptureInfo ids) whose graph already
  /// holds a user object of this window: one per graph, however many
  /// captured calls use the window.
  std::vector<unsigned long long> captures;
  /// Destroys the events (exported: the unit tests make windows by hand).
  COLLC_API ~WindowShared();
};

/// A peer's allocation this rank opened with cuIpcOpenMemHandle, shared by
/// every window that lies in it; closed when the last one goes.
struct PeerMapping {
  int peer = -1;
  /// The allocation's base in the peer's address space: names it among
  /// the peer's live allocations (registered memory is not freed before
  /// every rank deregistered it).
  CUdeviceptr peerBase = 0;
  CUdeviceptr mapped = 0;
  int refs = 0;
};

/// True when [ptr, ptr + bytes) lies inside one complete window of `comm`
/// (registered by every rank); *where = (slot << kWindowShift) | (ptr -
/// this rank's registered buff). A linear scan over the live windows: no
/// allocation, no driver call (the launch path calls it on every call).
/// The program a call runs (nullptr: the v1 kernel, or none serves it) and
/// the zero-copy parameters it is launched with: `found` the buffers that
/// lie in registered windows (kRegisteredInput, kRegisteredOutput; their
/// uses are noted, noteWindowUse), `win` where each buffer a zero-copy
/// program publishes is (a window's slot and offset, or a clique's direct
/// buffer, directReadable). collcLaunch's choice, for the GPU suite's white
/// box checks too.
COLLC_API Workspace *routeCall(collcComm_t comm, const Route &route,
                               long long key, const void *sendbuff,
                               unsigned long long sendBytes,
                               const void *recvbuff,
                               unsigned long long recvBytes,
                               collcWindowParams *win, unsigned *found);

/// An on/off environment variable: unset, empty or its default's digit ->
/// byDefault, the other digit -> !byDefault, anything else refused with
/// "NAME is 'v'; expected D (whatDefault, the default) or O (whatOther)".
COLLC_API collcResult_t envSwitch(const char *name, bool byDefault,
                                  const char *whatDefault,
                                  const char *whatOther, bool *on);

/// COLLC_CLIQUE_DIRECT: unset, empty or 1 -> true (the default), 0 ->
/// false, anything else refused (collcCommInitAll).
COLLC_API collcResult_t cliqueDirectRequested(bool *on);

/// Whether `bytes` at `ptr` (a buffer checkBuffer accepted) may be read in
/// place by every rank of this communicator's clique without registration:
/// comm->cliqueDirect, an address the where word can carry, and memory
/// every rank's device reads (this device's, when the clique has one;
/// cudaMalloc memory, to which collcCommInitAll enabled peer access, when
/// it has several; not pool, VMM or managed memory, whose access is the
/// allocator's). Every rank must answer alike for a call, or the ranks run
/// different programs: true on one device; across devices, as long as the
/// ranks' buffers come from one kind of allocator.
COLLC_API bool directReadable(collcComm_t comm, const void *ptr,
                              unsigned long long bytes);

COLLC_API bool findWindow(collcComm_t comm, const void *ptr,
                          unsigned long long bytes, unsigned long long *where);

/// Records that work just queued on `stream` reads or writes the window of
/// `where` (a findWindow result), so that deregistration is safe: eager
/// work gets an event per (window, stream), recorded now (deregistration
/// waits for it); a capture (cuStreamGetCaptureInfo) gets, once per graph,
/// a CUDA user object moved into the graph whose destructor releases the
/// window's live-graph count (deregistration is refused while it is > 0).
/// Call it with the communicator's context current, after the launch.
COLLC_API collcResult_t noteWindowUse(collcComm_t comm,
                                      unsigned long long where,
                                      CUstream stream);

/// Closes every window of `comm` (communicator destruction): mappings
/// closed, nothing waited for.
void releaseWindows(collcComm_t comm);
/// Refuses a window argument that is not a live window of `comm`.
collcResult_t checkOwned(collcComm_t comm, collcWindow_t window);

/// The device API (device_api.cpp): allocates this rank's inbox and
/// expected counts at setup; fills the device array of every rank's inbox
/// (as mapped here) once they are known; frees them.
collcResult_t deviceApiSetup(collcComm_t comm);
collcResult_t deviceApiPeers(collcComm_t comm,
                             const std::vector<CUdeviceptr> &inboxes);
void deviceApiRelease(collcComm_t comm);
/// The in-switch opt-in (multimem.cpp): COLLC_MULTIMEM parsed (unset or 0:
/// off; 1: on; anything else refused).
COLLC_API collcResult_t multimemRequested(bool *on);
/// Asks whether `device` supports multicast, how multimemProbe does.
using MulticastQuery = collcResult_t (*)(int device, int *supported);
/// The driver's answer (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED).
collcResult_t driverMulticastQuery(int device, int *supported);
/// *supported for this rank's device: `query` is called only when the user
/// asked for multicast (`requested`); otherwise 0 without a question.
COLLC_API collcResult_t multimemProbe(bool requested, int device,
                                      MulticastQuery query, int *supported);
/// Whether a communicator may select in-switch programs: every rank opted
/// in (COLLC_MULTIMEM=1) and every device supports multicast.
COLLC_API bool multimemSelectable(const std::vector<int> &requested,
                                  const std::vector<int> &supported);
/// Whether program `g` joins a communicator's routes: an in-switch one only
/// where its buffers can be bound to multicast objects (`multicastBound`).
COLLC_API bool programRoutable(const ProgramInfo &g, bool multicastBound);
/// The refusal of an opted-in communicator (every rank's opt-in, device
/// and answer): names a rank that did not opt in, else the first device
/// without support, else says that this libcollc binds no buffer to a
/// multicast object. Always fails.
COLLC_API collcResult_t multimemRefusal(int rank,
                                        const std::vector<int> &requested,
                                        const std::vector<int> &devices,
                                        const std::vector<int> &supported);
/// Whether a user kernel's device-API wait timed out; when it did and
/// `report`, the error message (collcGetLastError).
bool deviceApiFailed(collcComm_t comm, bool report);

/// The ranks one process drives (collcCommInitAll): which rank queued work
/// on which stream, so that two ranks on one stream (which can never
/// complete a collective: the second kernel waits for the first, which
/// waits for the second) are refused at launch.
struct Clique {
  std::mutex mutex;
  /// Stream id (cuStreamGetId: unique for the life of the process, so a
  /// destroyed stream's handle reused by a new one is a new id) -> rank.
  std::map<unsigned long long, int> streamOwner;
  /// Device of every rank.
  std::vector<int> devices;
  /// Every rank's communicator (NULL once destroyed): the rank completing
  /// a window fills every rank's table. Guarded by `mutex`.
  std::vector<collcComm *> comms;
  /// Windows not yet registered by every rank, by registration number
  /// (the k-th collcCommRegister of every rank is window k). Guarded by
  /// `mutex`.
  std::map<unsigned long long, std::shared_ptr<WindowShared>> pending;
};

} // namespace collc

/// A registered window, as one rank holds it (collcWindow_t).
struct collcWindow {
  collcComm_t comm = nullptr;
  /// Which registration of the communicator it is (0, 1, ...).
  unsigned long long number = 0;
  int slot = -1;
  /// This rank's range.
  CUdeviceptr buff = 0;
  unsigned long long bytes = 0;
  /// One process per rank: the peers' mappings this window holds (indices
  /// into collcComm::mappings, one per peer; -1 for this rank).
  std::vector<int> mappings;
  std::shared_ptr<collc::WindowShared> shared;
};

struct collcComm {
  collcModule_t module = nullptr;
  int rank = 0, nranks = 0, device = 0, capability = 0;
  /// The device's PCI domain, bus and device ids: tells the ranks that share
  /// one GPU apart from those on another (residency admission).
  int pci[3] = {0, 0, 0};
  CUcontext context = nullptr;
  CUmodule cuModule = nullptr;
  std::string imageTarget;
  /// Device timelines (COLLC_TRACE, trace.cpp): the kernels' buffer, its
  /// capacity in events, and CLOCK_REALTIME minus %globaltimer.
  CUdeviceptr traceBuffer = 0;
  unsigned long long traceCapacity = 0;
  long long traceOffsetNs = 0;
  unsigned long long timeoutNs = 0;
  /// Host-mapped error records, COLLC_ERROR_WORDS per kernel.
  unsigned long long *errorHost = nullptr;
  std::vector<collc::Workspace> workspaces; // kernels at nranks
  /// routes[collective index * collcNumTypes + type] (collc::buildRoutes).
  std::vector<collc::Route> routes;
  /// Launches so far: the next launch's token (abi.h, the claim word).
  unsigned long long launches = 0;
  /// The ranks of this process, when it drives several (collcCommInitAll).
  std::shared_ptr<collc::Clique> clique;
  /// The bootstrap allgather of collcCommInitRank, kept for registrations
  /// (NULL for collcCommInitAll).
  collcAllGatherFn_t allgather = nullptr;
  void *userData = nullptr;
  /// The device API (collcCommGetDeviceHandle, device_comm.h): this rank's
  /// inbox and expected counts (COLLC_DEVICE_SIGNAL_SLOTS x nranks words,
  /// zeroed at setup), the device array of every rank's inbox as mapped
  /// here, the peers' inboxes opened by IPC, and its error record (in
  /// errorHost, after the kernels').
  CUdeviceptr deviceInbox = 0, deviceExpected = 0, deviceInboxPeers = 0;
  std::vector<CUdeviceptr> deviceOpened;
  unsigned long long *deviceError = nullptr;
  CUdeviceptr deviceErrorDevice = 0;
  /// COLLC_MULTIMEM=1 was set, and whether this rank's device supports
  /// multicast (asked only then: multimem.cpp).
  bool multimemRequested = false;
  int multicastSupported = 0;
  /// Whether this communicator's registered buffers are bound to multicast
  /// objects, so that its in-switch programs may run (programRoutable).
  /// Never true in this build: it creates no multicast object
  /// (multimem.cpp), and an opted-in communicator is refused instead.
  bool multicastBound = false;
  /// Registered buffers: (kMaxWindows + 1) x nranks device addresses, row s
  /// every rank's buff of the window in slot s as this rank maps it, 0 where
  /// no window (allocated zeroed at setup); row kDirectWindow stays 0.
  CUdeviceptr windowTable = 0;
  /// One process driving every rank (collcCommInitAll) and
  /// COLLC_CLIQUE_DIRECT not 0: ordinary buffers that every rank's device
  /// can read are read in place, as registered ones (directReadable).
  bool cliqueDirect = false;
  /// Every rank of the clique on this rank's device: any device memory of
  /// it is readable by all.
  bool cliqueOneDevice = false;
  /// A non-blocking stream of this rank for table uploads, so that they
  /// never wait behind the user's work on blocking streams.
  CUstream windowStream = nullptr;
  /// Live windows in registration order, and by slot.
  std::vector<collcWindow *> windows;
  collcWindow *windowSlots[collc::kMaxWindows] = {};
  /// collcCommRegister calls so far: the number of the next window.
  unsigned long long registrations = 0;
  /// Peer allocations opened for windows (refs 0: closed, reusable entry).
  std::vector<collc::PeerMapping> mappings;
  bool aborted = false;
  collc::Workspace *find(const std::string &collective,
                         const std::string &type);
};

namespace collc {

/// The spec spelling of a data type ("bf16").
const char *typeName(collcDataType_t type);
int typeBytes(collcDataType_t type);

/// Makes the communicator's context current on this thread.
collcResult_t useContext(collcComm_t comm);

/// Fills comm->routes from its workspaces, honouring `force` (see
/// ForceVariant). Run once the workspaces are final.
/// (Exported, with pickProgram and parseForceVariant, for the unit tests
/// only: libcollc.map.)
COLLC_API void buildRoutes(collcComm_t comm, const ForceVariant &force);

} // namespace collc

#endif // COLLC_RUNTIME_SRC_RUNTIME_H

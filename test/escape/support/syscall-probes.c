/*
 * Kernel interfaces an escape would go through, each tried once and reported as
 * `name:ok` or `name:errno=N` (one line each). Compiled on the host by the escape suite and run
 * inside the sandbox and, as the positive control, unsandboxed. Every probe is harmless when it
 * succeeds: it sets what is already set, or makes something only the probe holds.
 * Usage: syscall-probes <probe> [file]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/inet_diag.h>
#include <linux/mount.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sched.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/fanotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static int report(const char *name, long result) {
  if (result < 0) printf("%s:errno=%d\n", name, errno);
  else printf("%s:ok\n", name);
  return 0;
}

#if defined(__x86_64__)
/* An i386 system call through `int 0x80` (its own numbers, arguments truncated to 32 bits). */
static long int80(long nr, long a, long b, long c) {
  long result;
  __asm__ volatile("int $0x80" : "=a"(result) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
  if (result < 0 && result > -4096) {
    errno = (int)-result;
    return -1;
  }
  return result;
}
#endif

/* PING a Redis server at `address` (`sendto` with MSG_FASTOPEN when `fast_open`): "+PONG" or errno. */
static int redis_ping(const char *name, const struct sockaddr *address, socklen_t length, int fast_open) {
  int fd = socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return report(name, -1);
  struct timeval timeout = {.tv_sec = 2};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  long sent = fast_open ? sendto(fd, "PING\r\n", 6, MSG_FASTOPEN, address, length)
                        : (connect(fd, address, length) < 0 ? -1 : write(fd, "PING\r\n", 6));
  if (sent < 0) return report(name, -1);
  char reply[16] = {0};
  if (read(fd, reply, 5) < 0) return report(name, -1);
  printf("%s:%s\n", name, reply);
  return 0;
}

/* Whether a sock_diag dump of TCP listeners (IPv4) lists `port`: "listed" or "unlisted". */
static int diag_lists_port(const char *name, int port) {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return report(name, -1);
  struct {
    struct nlmsghdr header;
    struct inet_diag_req_v2 request;
  } message = {
      .header = {.nlmsg_len = sizeof message, .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
      .request = {.sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP, .idiag_states = 1 << 10 /* TCP_LISTEN */},
  };
  if (send(fd, &message, sizeof message, 0) < 0) return report(name, -1);
  static char buffer[1 << 16];
  for (;;) {
    long length = recv(fd, buffer, sizeof buffer, 0);
    if (length < 0) return report(name, -1);
    for (struct nlmsghdr *h = (struct nlmsghdr *)buffer; NLMSG_OK(h, length); h = NLMSG_NEXT(h, length)) {
      if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
        printf("%s:unlisted\n", name);
        return 0;
      }
      struct inet_diag_msg *entry = NLMSG_DATA(h);
      if (ntohs(entry->id.idiag_sport) == port) {
        printf("%s:listed\n", name);
        return 0;
      }
    }
  }
}

int main(int argc, char **argv) {
  const char *probe = argc > 1 ? argv[1] : "";
  const char *file = argc > 2 ? argv[2] : ".";
  if (strcmp(probe, "ia32-getpid") == 0) {
#if defined(__x86_64__)
    return report(probe, int80(20, 0, 0, 0)); /* i386 getpid */
#endif
  } else if (strcmp(probe, "ia32-socket-unix") == 0) {
#if defined(__x86_64__)
    return report(probe, int80(359, 1, 1, 0)); /* i386 socket(AF_UNIX, SOCK_STREAM, 0) */
#endif
  } else if (strcmp(probe, "ia32-socketcall-unix") == 0) {
#if defined(__x86_64__)
    /* socketcall(SYS_SOCKET, {AF_UNIX, SOCK_STREAM, 0}): the arguments must sit below 4 GiB. */
    unsigned int *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (args == MAP_FAILED) return report("mmap32", -1);
    args[0] = 1;
    args[1] = 1;
    args[2] = 0;
    return report(probe, int80(102, 1, (long)(uintptr_t)args, 0));
#endif
  } else if (strcmp(probe, "open-by-handle") == 0) {
    /* name_to_handle_at needs no privilege; open_by_handle_at needs CAP_DAC_READ_SEARCH. */
    struct {
      struct file_handle handle;
      unsigned char bytes[MAX_HANDLE_SZ];
    } h;
    int mount_id;
    h.handle.handle_bytes = MAX_HANDLE_SZ;
    if (name_to_handle_at(AT_FDCWD, file, &h.handle, &mount_id, 0) < 0) return report("name-to-handle", -1);
    int mount_fd = open(".", O_RDONLY | O_DIRECTORY);
    return report(probe, open_by_handle_at(mount_fd, &h.handle, O_RDONLY));
  } else if (strcmp(probe, "raise-hard-rlimit") == 0) {
    /* Lowering a hard limit is anyone's right; raising it back needs CAP_SYS_RESOURCE. */
    struct rlimit limit;
    getrlimit(RLIMIT_MEMLOCK, &limit);
    limit.rlim_max -= 1;
    if (limit.rlim_cur > limit.rlim_max) limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_MEMLOCK, &limit) < 0) return report("lower-hard-rlimit", -1);
    limit.rlim_max += 1;
    return report(probe, setrlimit(RLIMIT_MEMLOCK, &limit));
  } else if (strcmp(probe, "set-clock") == 0) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return report(probe, clock_settime(CLOCK_REALTIME, &now));
  } else if (strcmp(probe, "adjtimex-tick") == 0) {
    struct timex t = {0};
    adjtimex(&t); /* read */
    long tick = t.tick;
    memset(&t, 0, sizeof t);
    t.modes = ADJ_TICK;
    t.tick = tick; /* the same value: a change that changes nothing */
    return report(probe, adjtimex(&t));
  } else if (strcmp(probe, "unshare-time") == 0) {
    return report(probe, unshare(0x00000080 /* CLONE_NEWTIME */));
  } else if (strcmp(probe, "bpf-map") == 0) {
    union bpf_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.map_type = BPF_MAP_TYPE_ARRAY;
    attr.key_size = 4;
    attr.value_size = 4;
    attr.max_entries = 1;
    return report(probe, syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr));
  } else if (strcmp(probe, "perf-kernel") == 0) {
    /* A CPU-wide count including the kernel: what a side channel or a profiler of the host needs. */
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    return report(probe, syscall(SYS_perf_event_open, &attr, -1, 0, -1, 0));
  } else if (strcmp(probe, "userfaultfd") == 0) {
    /* Without UFFD_USER_MODE_ONLY: kernel-mode faults too, the race-widening tool of exploits. */
    return report(probe, syscall(SYS_userfaultfd, O_CLOEXEC));
  } else if (strcmp(probe, "file-capability") == 0) {
    /* A v2 security.capability of cap_setuid+ep: file capabilities instead of a set-id bit. */
    uint32_t caps[5] = {0x02000001 /* VFS_CAP_REVISION_2 | EFFECTIVE */, 1u << 7, 0, 0, 0};
    return report(probe, setxattr(file, "security.capability", caps, sizeof caps, 0));
  } else if (strcmp(probe, "clone3-into-cgroup") == 0) {
    /* A child started in the cgroup v2 group whose directory `file` names (CLONE_INTO_CGROUP). */
    int group = open(file, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (group < 0) return report("open-group", -1);
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = (uint64_t)group;
    long child = syscall(SYS_clone3, &args, sizeof args);
    if (child == 0) {
      /* The child's own v2 group, from /proc/self/cgroup's "0::" line. */
      char text[8192];
      int fd = open("/proc/self/cgroup", O_RDONLY);
      ssize_t length = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
      text[length > 0 ? length : 0] = 0;
      char *line = strstr(text, "0::");
      if (line != NULL) line[strcspn(line, "\n")] = 0;
      printf("clone3-child:%s\n", line == NULL ? "none" : line + 3);
      fflush(stdout);
      _exit(0);
    }
    if (child > 0) waitpid(child, NULL, 0);
    return report(probe, child);
  } else if (strcmp(probe, "mmap-write") == 0) {
    /* Writes 'X' over the file's first byte through a shared writable mapping: the kernel clears
       set-id bits on write() and truncation, not on a store through a mapping. */
    int fd = open(file, O_RDWR);
    if (fd < 0) return report("open-rdwr", -1);
    char *map = mmap(NULL, 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) return report(probe, -1);
    map[0] = 'X';
    return report(probe, msync(map, 1, MS_SYNC));
  } else if (strcmp(probe, "read-lease") == 0 || strcmp(probe, "write-lease") == 0) {
    /* A lease on a descriptor opened read-only, held 1.5 s: SIGIO (the break notice) ignored. */
    signal(SIGIO, SIG_IGN);
    int fd = open(file, O_RDONLY);
    if (fd < 0) return report("open", -1);
    long result = fcntl(fd, F_SETLEASE, probe[0] == 'w' ? F_WRLCK : F_RDLCK);
    report(probe, result);
    fflush(stdout);
    if (result == 0) usleep(1500 * 1000);
    return 0;
  } else if (strcmp(probe, "lease-high-bits") == 0) {
    /* F_SETLEASE with bits above the low 32 set: the kernel reads the command as an unsigned int. */
    signal(SIGIO, SIG_IGN);
    int fd = open(file, O_RDONLY);
    if (fd < 0) return report("open", -1);
    long result = syscall(SYS_fcntl, fd, (1UL << 32) | F_SETLEASE, F_WRLCK);
    report(probe, result);
    fflush(stdout);
    if (result == 0) usleep(1500 * 1000);
    return 0;
  } else if (strcmp(probe, "fanotify-open-perm") == 0) {
    /* Permission events: every open of the file waits for this process's answer (never given). */
    int fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
    if (fd < 0) return report(probe, -1);
    long result = fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, file);
    report(probe, result);
    fflush(stdout);
    if (result == 0) usleep(1500 * 1000);
    return 0;
  } else if (strcmp(probe, "posix-lock") == 0) {
    /* An ordinary record lock on a workspace file: what build tools and databases take. */
    int fd = open(file, O_RDWR);
    struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    return report(probe, fd < 0 ? -1 : fcntl(fd, F_SETLK, &lock));
  } else if (strcmp(probe, "redis-variants") == 0) {
    /* The host's Redis on 127.0.0.1:<file> through other spellings and calls than connect(127.0.0.1). */
    int port = atoi(file);
    struct sockaddr_in v4 = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "0.0.0.0", &v4.sin_addr);
    redis_ping("any-address", (struct sockaddr *)&v4, sizeof v4, 0);
    struct sockaddr_in6 v6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
    inet_pton(AF_INET6, "::ffff:127.0.0.1", &v6.sin6_addr);
    redis_ping("v4-mapped", (struct sockaddr *)&v6, sizeof v6, 0);
    inet_pton(AF_INET, "127.0.0.1", &v4.sin_addr);
    return redis_ping("fast-open", (struct sockaddr *)&v4, sizeof v4, 1);
  } else if (strcmp(probe, "diag-listener") == 0) {
    /* sock_diag: the host's listening sockets, as ss -ltn lists them. */
    return diag_lists_port(probe, atoi(file));
  } else if (strcmp(probe, "mount-api") == 0) {
    /* The new mount API: a new tmpfs, a copy of a mount tree, the read-only flag of /usr cleared. */
    report("fsopen", syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC));
    report("open-tree", syscall(SYS_open_tree, AT_FDCWD, file, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
    struct mount_attr attr = {.attr_clr = MOUNT_ATTR_RDONLY};
    return report("mount-setattr", syscall(SYS_mount_setattr, AT_FDCWD, "/usr", 0, &attr, sizeof attr));
  } else if (strcmp(probe, "clone-namespaces") == 0) {
    /* clone (not clone3) with a user namespace, then a mount namespace; the child exits at once. */
    int flags[] = {CLONE_NEWUSER, CLONE_NEWNS};
    const char *names[] = {"clone-newuser", "clone-newns"};
    for (int i = 0; i < 2; i++) {
      long child = syscall(SYS_clone, flags[i] | SIGCHLD, 0, 0, 0, 0);
      if (child == 0) _exit(0);
      if (child > 0) waitpid(child, NULL, 0);
      report(names[i], child);
    }
    return 0;
  } else if (strcmp(probe, "peer-pidfd") == 0) {
    /* A pidfd of the process at the other end of stdout (SO_PEERPIDFD): the host's, when it is a socket. */
    int pidfd = -1;
    socklen_t length = sizeof pidfd;
    if (getsockopt(1, SOL_SOCKET, 77 /* SO_PEERPIDFD */, &pidfd, &length) < 0) return report("peer-pidfd", -1);
    report("peer-pidfd", pidfd);
    report("pidfd-getfd", syscall(438 /* pidfd_getfd */, pidfd, 0, 0));
    report("pidfd-net-namespace", ioctl(pidfd, _IO(0xFF, 4) /* PIDFD_GET_NET_NAMESPACE */, 0));
    report("pidfd-mnt-namespace", ioctl(pidfd, _IO(0xFF, 3) /* PIDFD_GET_MNT_NAMESPACE */, 0));
    return report("pidfd-signal", syscall(424 /* pidfd_send_signal */, pidfd, 0, NULL, 0));
  }
  printf("%s:unknown\n", probe);
  return 2;
}

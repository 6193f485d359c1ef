#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the hwloc XML topologies of test/data/ (GPU nodes for the binding
plan tests). Run from test/data/: ./make-topologies.py. The files are checked
in; this script only documents how they were made.

Each node has NVIDIA GPUs (PCI class 0x0302, vendor 0x10de) under host bridges
attached to packages, plus devices the plan must ignore (a Mellanox NIC, an
ASPEED VGA controller). PUs are numbered as Linux does with SMT: core c of the
machine has PUs c and c + ncores.
"""


def bitmap(bits):
    """hwloc's XML bitmap text: 32-bit hex words, most significant first."""
    value = 0
    for b in bits:
        value |= 1 << b
    words = []
    while True:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
        if value == 0:
            break
    return ",".join("0x%08x" % w for w in reversed(words))


class Writer:
    def __init__(self):
        self.lines = []
        self.gp = 0

    def gp_index(self):
        self.gp += 1
        return self.gp

    def sets(self, cpus, nodes):
        c, n = bitmap(cpus), bitmap(nodes)
        return ('cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s"'
                % (c, c, n, n))

    def add(self, depth, text):
        self.lines.append("  " * depth + text)


def pci_dev(w, depth, busid, cls, vendor, device):
    w.add(depth, '<object type="PCIDev" gp_index="%d" pci_busid="%s" '
          'pci_type="%04x [%04x:%04x] [%04x:0000] a1" pci_link_speed="31.507692"/>'
          % (w.gp_index(), busid, cls, vendor, device, vendor))


def host_bridge(w, depth, bus, devices):
    w.add(depth, '<object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" '
          'bridge_pci="0000:[%02x-%02x]">' % (w.gp_index(), bus, bus))
    for dev in devices:
        pci_dev(w, depth + 1, *dev)
    w.add(depth, "</object>")


def gpu(bus):
    return ("0000:%02x:00.0" % bus, 0x0302, 0x10DE, 0x2330)


def package(w, p, cores_per_pkg, npkg, buses, extra):
    ncores = cores_per_pkg * npkg
    cores = range(p * cores_per_pkg, (p + 1) * cores_per_pkg)
    pus = [c for c in cores] + [c + ncores for c in cores]
    w.add(2, '<object type="Package" os_index="%d" %s gp_index="%d">'
          % (p, w.sets(pus, [p]), w.gp_index()))
    w.add(3, '<object type="NUMANode" os_index="%d" %s gp_index="%d" local_memory="274877906944"/>'
          % (p, w.sets(pus, [p]), w.gp_index()))
    for c in cores:
        w.add(3, '<object type="Core" os_index="%d" %s gp_index="%d">'
              % (c, w.sets([c, c + ncores], [p]), w.gp_index()))
        for pu in (c, c + ncores):
            w.add(4, '<object type="PU" os_index="%d" %s gp_index="%d"/>'
                  % (pu, w.sets([pu], [p]), w.gp_index()))
        w.add(3, "</object>")
    for bus in buses:
        host_bridge(w, 3, bus, [gpu(bus)])
    for bus, dev in extra:
        host_bridge(w, 3, bus, [dev])
    w.add(2, "</object>")


def machine(name, npkg, cores_per_pkg, gpu_buses, extras):
    w = Writer()
    ncores = npkg * cores_per_pkg
    allpus = list(range(2 * ncores))
    c, n = bitmap(allpus), bitmap(range(npkg))
    w.add(0, '<?xml version="1.0" encoding="UTF-8"?>')
    w.add(0, '<!DOCTYPE topology SYSTEM "hwloc2.dtd">')
    w.add(0, '<topology version="2.0">')
    w.add(1, '<object type="Machine" os_index="0" cpuset="%s" complete_cpuset="%s" '
          'allowed_cpuset="%s" nodeset="%s" complete_nodeset="%s" allowed_nodeset="%s" '
          'gp_index="%d">' % (c, c, c, n, n, n, w.gp_index()))
    w.add(2, '<info name="Backend" value="Synthetic test data (dmesh)"/>')
    w.add(2, '<info name="HostName" value="%s"/>' % name)
    for p in range(npkg):
        package(w, p, cores_per_pkg, npkg, gpu_buses[p], extras[p])
    w.add(1, "</object>")
    w.add(0, "</topology>")
    with open(name + ".xml", "w") as f:
        f.write("\n".join(w.lines) + "\n")


NIC = (0x0000, ("0000:0c:00.0", 0x0207, 0x15B3, 0x101B))
VGA = (0x0003, ("0000:03:00.0", 0x0300, 0x1A03, 0x2000))

# Two sockets, four GPUs each, bus ids in socket order.
machine("2s-8gpu", 2, 16,
        [[0x07, 0x0F, 0x47, 0x4E], [0x87, 0x90, 0xB7, 0xBD]],
        [[(0x03, VGA[1]), (0x0C, NIC[1])], [(0x8C, ("0000:8c:00.0", 0x0207, 0x15B3, 0x101B))]])
# One socket, eight GPUs.
machine("1s-8gpu", 1, 64,
        [[0x01, 0x21, 0x41, 0x61, 0x81, 0xA1, 0xC1, 0xE1]],
        [[(0x03, VGA[1])]])
# Two sockets, four GPUs, all on socket 0.
machine("2s-4gpu-socket0", 2, 8,
        [[0x18, 0x3B, 0x86, 0xAF], []],
        [[(0x03, VGA[1])], [(0xD8, ("0000:d8:00.0", 0x0207, 0x15B3, 0x1017))]])
# Two sockets, four GPUs each, bus ids interleaved between the sockets, so
# that CUDA's bus-id numbering alternates sockets (GPU 0, 2, 4, 6 on socket 0).
machine("2s-8gpu-interleaved", 2, 16,
        [[0x07, 0x47, 0x87, 0xC7], [0x27, 0x67, 0xA7, 0xE7]],
        [[(0x03, VGA[1])], []])

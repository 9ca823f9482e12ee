/**
 * What a GPU host has: {@link dev.cipolicy.fleet.host.HostDevices} reads the devices a host's vendor tool lists
 * ({@code nvidia-smi}, {@code rocm-smi}) or an operator gives, with their optional groups (NVLink islands, PCIe
 * switches), into the queue's {@link dev.cipolicy.queue.model.Devices}. Parsing only: running the tools is the
 * caller's business.
 */
@NullMarked
package dev.cipolicy.fleet.host;

import org.jspecify.annotations.NullMarked;

/*
 * Opens a slangpack package through the C API, prints every entry's entry points, descriptor
 * bindings and push-constant ranges, and builds the Vulkan descriptor-set-layout and
 * pipeline-layout create infos an engine would pass to vkCreateDescriptorSetLayout and
 * vkCreatePipelineLayout (printed, field by field, instead of calling the driver). For a
 * package baked with `--target wgsl` or `--target hlsl` it also prints each binding's WGSL
 * @group/@binding and HLSL register, and the D3D12 root parameters of each entry's pipeline
 * (what D3D12_ROOT_PARAMETER1 and D3D12_DESCRIPTOR_RANGE1 take, and the root-signature string).
 *
 *   cc -std=c11 -I reader/capi/include bindings.c target/debug/libslangpack_c.a -lpthread -ldl -lm
 *   ./a.out shaders.slangpack
 */
#include <slangpack.h>
#include <vulkan/vulkan.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Descriptors reserved for an unbounded (bindless) array: the engine's choice. */
#define BINDLESS_CAPACITY 1024u

static void print_str(const char *label, SlangpackStr s) {
    printf(" %s=%.*s", label, (int)s.len, s.ptr);
}

/* Fills one VkDescriptorSetLayoutCreateInfo for Vulkan set `set` of `entry`. `bindings` and
 * `flags` must have room for every binding of the set; holes give an empty layout. */
static VkDescriptorSetLayoutCreateInfo set_layout_info(
    SlangpackEntry entry, uint32_t set, VkDescriptorSetLayoutBinding *bindings,
    VkDescriptorBindingFlags *flags, VkDescriptorSetLayoutBindingFlagsCreateInfo *flags_info) {
    size_t count = 0;
    const SlangpackDescriptorBinding *b = slangpack_bind_set_bindings(entry, set, &count);
    uint32_t n = 0;
    int unbounded = 0;
    for (size_t i = 0; i < count; i++) {
        if (b[i].count_kind == SLANGPACK_COUNT_ZERO) {
            continue; /* a zero-length array: Slang reserved the number, SPIR-V declares nothing */
        }
        VkDescriptorSetLayoutBinding vk;
        memset(&vk, 0, sizeof vk);
        vk.binding = b[i].binding;
        vk.descriptorType = (VkDescriptorType)b[i].descriptor_type;
        vk.descriptorCount =
            b[i].count_kind == SLANGPACK_COUNT_UNBOUNDED ? BINDLESS_CAPACITY : b[i].count;
        vk.stageFlags = b[i].stage_flags;
        flags[n] = 0;
        if (b[i].count_kind == SLANGPACK_COUNT_UNBOUNDED) {
            flags[n] = VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT |
                       VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT;
            unbounded = 1;
        }
        bindings[n++] = vk;
    }
    /* Vulkan allows a variable descriptor count only on the set's highest binding (the
     * bindings come sorted by number). */
    if (n > 0 && (flags[n - 1] & VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT)) {
        flags[n - 1] |= VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT;
    }
    VkDescriptorSetLayoutCreateInfo info;
    memset(&info, 0, sizeof info);
    info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    info.bindingCount = n;
    info.pBindings = n ? bindings : NULL;
    if (unbounded) {
        memset(flags_info, 0, sizeof *flags_info);
        flags_info->sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO;
        flags_info->bindingCount = n;
        flags_info->pBindingFlags = flags;
        info.pNext = flags_info;
        info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
    }
    return info;
}

static const char *target_kind_name(uint32_t kind) {
    switch (kind) {
    case SLANGPACK_TARGET_BINDING_KIND_UNIFORM_BUFFER: return "uniform_buffer";
    case SLANGPACK_TARGET_BINDING_KIND_STORAGE_BUFFER: return "storage_buffer";
    case SLANGPACK_TARGET_BINDING_KIND_SAMPLER: return "sampler";
    case SLANGPACK_TARGET_BINDING_KIND_TEXTURE: return "texture";
    case SLANGPACK_TARGET_BINDING_KIND_STORAGE_TEXTURE: return "storage_texture";
    case SLANGPACK_TARGET_BINDING_KIND_ARGUMENT_BUFFER: return "argument_buffer";
    default: return "other";
    }
}

/* Every WGSL @group/@binding and HLSL register of the entry's further-target bind views. */
static void print_target_bindings(SlangpackEntry entry) {
    size_t count = 0;
    const SlangpackTargetBinding *t = slangpack_bind_target_bindings(entry, &count);
    for (size_t i = 0; i < count; i++) {
        if (t[i].kind == SLANGPACK_TARGET_BINDING_KIND_PUSH_CONSTANTS ||
            t[i].space == SLANGPACK_ABSENT) {
            continue;
        }
        if (t[i].target == SLANGPACK_TARGET_WGSL) {
            printf("wgsl_binding group=%u binding=%u", t[i].space, t[i].index);
        } else if (t[i].target == SLANGPACK_TARGET_HLSL) {
            printf("hlsl_register register=%c%u space=%u", (char)t[i].register_class, t[i].index,
                   t[i].space);
        } else {
            continue;
        }
        if (t[i].count == 0) {
            printf(" count=unbounded");
        } else {
            printf(" count=%u", t[i].count);
        }
        printf(" kind=%s", target_kind_name(t[i].kind));
        print_str("path", slangpack_entry_string(entry, t[i].path));
        printf("\n");
    }
}

/* The D3D12 root parameters of the pipeline of all the entry's entry points, for an entry
 * baked for HLSL. */
static int print_root_parameters(SlangpackEntry entry) {
    size_t n = slangpack_entry_entry_point_count(entry);
    size_t len = 0;
    if (n == 0 || !slangpack_entry_point_code(entry, 0, SLANGPACK_TARGET_HLSL, &len, NULL)) {
        return 0;
    }
    SlangpackStr *names = calloc(n, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        SlangpackEntryPoint ep;
        if (slangpack_entry_entry_point(entry, i, &ep)) {
            names[i] = ep.name;
        }
    }
    SlangpackPipeline pipeline;
    SlangpackError error;
    SlangpackErrorKind kind = slangpack_entry_pipeline_init(entry, names, n, &pipeline, &error);
    free(names);
    if (kind != SLANGPACK_ERROR_KIND_OK) {
        return 0; /* entry points that make no one pipeline */
    }
    size_t param_count = 0, range_count = 0;
    if (slangpack_pipeline_d3d12_root_parameters(&pipeline, NULL, 0, &param_count, NULL, 0,
                                                 &range_count, &error) != SLANGPACK_ERROR_KIND_OK) {
        fprintf(stderr, "root parameters: %s\n", error.message);
        return 1;
    }
    SlangpackD3d12RootParameter *params = calloc(param_count ? param_count : 1, sizeof *params);
    SlangpackD3d12Range *ranges = calloc(range_count ? range_count : 1, sizeof *ranges);
    slangpack_pipeline_d3d12_root_parameters(&pipeline, params, param_count, &param_count,
                                             ranges, range_count, &range_count, &error);
    for (size_t i = 0; i < param_count; i++) {
        const SlangpackD3d12RootParameter *p = &params[i];
        if (p->parameter_type == SLANGPACK_D3D12_ROOT_PARAMETER_CONSTANTS) {
            printf("d3d12_root_constants index=%zu register=b%u space=%u values=%u", i,
                   p->shader_register, p->space, p->values);
            print_str("path", slangpack_entry_string(p->entry, p->binding->path));
            printf("\n");
            continue;
        }
        printf("d3d12_table index=%zu space=%u samplers=%u ranges=%u\n", i, p->space, p->samplers,
               p->range_count);
        for (uint32_t r = p->first_range; r < p->first_range + p->range_count; r++) {
            static const char *const type_names[] = {"SRV", "UAV", "CBV", "Sampler"};
            printf("d3d12_range table=%zu type=%s base=%u space=%u", i,
                   type_names[ranges[r].range_type & 3], ranges[r].base_register,
                   ranges[r].space);
            if (ranges[r].num_descriptors == SLANGPACK_D3D12_UNBOUNDED) {
                printf(" count=unbounded");
            } else {
                printf(" count=%u", ranges[r].num_descriptors);
            }
            print_str("path", slangpack_entry_string(ranges[r].entry, ranges[r].binding->path));
            printf("\n");
        }
    }
    free(ranges);
    free(params);
    char text[1024];
    slangpack_pipeline_d3d12_root_signature(&pipeline, text, sizeof text, &len, &error);
    printf("d3d12_root_signature %s\n", len < sizeof text ? text : "(longer than the buffer)");
    return 0;
}

static int print_entry(SlangpackEntry entry) {
    printf("entry");
    print_str("key", slangpack_entry_key(entry));
    printf("\n");

    for (size_t i = 0; i < slangpack_entry_entry_point_count(entry); i++) {
        SlangpackEntryPoint ep;
        if (!slangpack_entry_entry_point(entry, i, &ep)) {
            return 1;
        }
        printf("entry_point");
        print_str("name", ep.name);
        print_str("spirv_entry", ep.spirv_entry_name);
        printf(" stage=%u threads=%u,%u,%u spirv_words=%zu magic=0x%08x\n", ep.stage,
               ep.thread_group_size[0], ep.thread_group_size[1], ep.thread_group_size[2],
               ep.spirv_word_count, ep.spirv_word_count ? ep.spirv[0] : 0u);
    }

    size_t binding_count = 0;
    const SlangpackDescriptorBinding *bindings = slangpack_bind_bindings(entry, &binding_count);
    for (size_t i = 0; i < binding_count; i++) {
        const SlangpackDescriptorBinding *b = &bindings[i];
        SlangpackStr path = slangpack_entry_string(entry, b->path);
        printf("binding set=%u binding=%u type=%u count=%u count_kind=%u stages=0x%x", b->set,
               b->binding, b->descriptor_type, b->count, b->count_kind, b->stage_flags);
        print_str("path", path);
        printf("\n");
        /* The name lookup finds the very same record. */
        if (slangpack_bind_find_binding(entry, path.ptr, path.len) != b) {
            fprintf(stderr, "lookup of %.*s failed\n", (int)path.len, path.ptr);
            return 1;
        }
    }

    size_t push_count = 0;
    const SlangpackPushConstantRange *push = slangpack_bind_push_constants(entry, &push_count);
    VkPushConstantRange *vk_push = calloc(push_count ? push_count : 1, sizeof *vk_push);
    for (size_t i = 0; i < push_count; i++) {
        printf("push_constant");
        print_str("name", slangpack_entry_string(entry, push[i].name));
        printf(" offset=%u size=%u stages=0x%x\n", push[i].offset, push[i].size,
               push[i].stage_flags);
        vk_push[i].stageFlags = push[i].stage_flags;
        vk_push[i].offset = push[i].offset;
        vk_push[i].size = push[i].size;
    }

    /* One set layout per slot, holes included, as the pipeline layout needs them. */
    uint32_t slots = slangpack_bind_set_slot_count(entry);
    VkDescriptorSetLayoutCreateInfo *infos = calloc(slots ? slots : 1, sizeof *infos);
    VkDescriptorSetLayoutBindingFlagsCreateInfo *flag_infos =
        calloc(slots ? slots : 1, sizeof *flag_infos);
    VkDescriptorSetLayoutBinding *vk_bindings =
        calloc(binding_count ? binding_count : 1, sizeof *vk_bindings);
    VkDescriptorBindingFlags *vk_flags = calloc(binding_count ? binding_count : 1, sizeof *vk_flags);
    size_t used = 0;
    for (uint32_t set = 0; set < slots; set++) {
        infos[set] = set_layout_info(entry, set, vk_bindings + used, vk_flags + used,
                                     &flag_infos[set]);
        printf("vk_set_layout set=%u bindingCount=%u flags=0x%x\n", set, infos[set].bindingCount,
               infos[set].flags);
        for (uint32_t i = 0; i < infos[set].bindingCount; i++) {
            const VkDescriptorSetLayoutBinding *vk = &infos[set].pBindings[i];
            printf("vk_binding set=%u binding=%u descriptorType=%u descriptorCount=%u "
                   "stageFlags=0x%x\n",
                   set, vk->binding, (unsigned)vk->descriptorType, vk->descriptorCount,
                   vk->stageFlags);
        }
        used += infos[set].bindingCount;
    }
    VkPipelineLayoutCreateInfo pipeline;
    memset(&pipeline, 0, sizeof pipeline);
    pipeline.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pipeline.setLayoutCount = slots; /* pSetLayouts: the layouts created from `infos` */
    pipeline.pushConstantRangeCount = (uint32_t)push_count;
    pipeline.pPushConstantRanges = push_count ? vk_push : NULL;
    printf("vk_pipeline_layout setLayoutCount=%u pushConstantRangeCount=%u\n",
           pipeline.setLayoutCount, pipeline.pushConstantRangeCount);

    free(vk_flags);
    free(vk_bindings);
    free(flag_infos);
    free(infos);
    free(vk_push);
    print_target_bindings(entry);
    return print_root_parameters(entry);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PACKAGE\n", argv[0]);
        return 2;
    }
    SlangpackPackage *package = NULL;
    SlangpackError error;
    if (slangpack_package_open(argv[1], strlen(argv[1]), &package, &error) !=
        SLANGPACK_ERROR_KIND_OK) {
        fprintf(stderr, "%s: %s (kind %u, at offset 0x%llx)\n", argv[1], error.message,
                (unsigned)error.kind, (unsigned long long)error.offset);
        return 1;
    }
    int status = 0;
    for (size_t i = 0; i < slangpack_package_entry_count(package) && status == 0; i++) {
        SlangpackEntry entry;
        if (slangpack_package_entry_at(package, i, &entry, &error) != SLANGPACK_ERROR_KIND_OK) {
            fprintf(stderr, "entry %zu: %s\n", i, error.message);
            status = 1;
            break;
        }
        status = print_entry(entry);
    }
    slangpack_package_close(package);
    return status;
}

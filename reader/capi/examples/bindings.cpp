// The C++17 twin of bindings.c: the same output from the same C API (Vulkan layouts, WGSL
// bindings, HLSL registers, D3D12 root parameters), with RAII ownership of the package,
// std::string_view over the package's strings and std::vector-held create infos.
//
//   c++ -std=c++17 -I reader/capi/include bindings.cpp target/debug/libslangpack_c.a -lpthread -ldl -lm
//   ./a.out shaders.slangpack
#include <slangpack.h>
#include <vulkan/vulkan.h>

#include <cstdio>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

constexpr uint32_t kBindlessCapacity = 1024;

struct PackageCloser {
    void operator()(SlangpackPackage *package) const { slangpack_package_close(package); }
};
using PackagePtr = std::unique_ptr<SlangpackPackage, PackageCloser>;

std::string_view view(SlangpackStr s) { return {s.ptr, s.len}; }

// A table of the C API as a (pointer, count) range.
template <typename T> struct Table {
    const T *data = nullptr;
    size_t count = 0;
    const T *begin() const { return data; }
    const T *end() const { return data + count; }
};

// Calls `fill(size_t *count)`, an accessor with its other arguments bound.
template <typename Fill> auto table(Fill fill) {
    size_t count = 0;
    const auto *data = fill(&count);
    return Table<std::remove_pointer_t<std::remove_const_t<decltype(data)>>>{data, count};
}

void print(const char *label, SlangpackStr s) {
    std::string_view v = view(s);
    std::printf(" %s=%.*s", label, static_cast<int>(v.size()), v.data());
}

// A set layout's create info with the storage it points into.
struct SetLayout {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    std::vector<VkDescriptorBindingFlags> flags;
    VkDescriptorSetLayoutBindingFlagsCreateInfo flags_info{};
    VkDescriptorSetLayoutCreateInfo info{};
};

void build(SetLayout &layout, SlangpackEntry entry, uint32_t set) {
    bool unbounded = false;
    for (const auto &b :
         table([&](size_t *n) { return slangpack_bind_set_bindings(entry, set, n); })) {
        if (b.count_kind == SLANGPACK_COUNT_ZERO) {
            continue;  // reserved number, no descriptor
        }
        VkDescriptorSetLayoutBinding vk{};
        vk.binding = b.binding;
        vk.descriptorType = static_cast<VkDescriptorType>(b.descriptor_type);
        vk.descriptorCount = b.count_kind == SLANGPACK_COUNT_UNBOUNDED ? kBindlessCapacity : b.count;
        vk.stageFlags = b.stage_flags;
        layout.bindings.push_back(vk);
        VkDescriptorBindingFlags flags = 0;
        if (b.count_kind == SLANGPACK_COUNT_UNBOUNDED) {
            flags = VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT |
                    VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT;
            unbounded = true;
        }
        layout.flags.push_back(flags);
    }
    // Vulkan allows a variable descriptor count only on the set's highest binding (the
    // bindings come sorted by number).
    if (!layout.flags.empty() &&
        (layout.flags.back() & VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT) != 0) {
        layout.flags.back() |= VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT;
    }
    layout.info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    layout.info.bindingCount = static_cast<uint32_t>(layout.bindings.size());
    layout.info.pBindings = layout.bindings.empty() ? nullptr : layout.bindings.data();
    if (unbounded) {
        layout.flags_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO;
        layout.flags_info.bindingCount = layout.info.bindingCount;
        layout.flags_info.pBindingFlags = layout.flags.data();
        layout.info.pNext = &layout.flags_info;
        layout.info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
    }
}

const char *target_kind_name(uint32_t kind) {
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

void print_count(uint32_t count, bool unbounded) {
    if (unbounded) {
        std::printf(" count=unbounded");
    } else {
        std::printf(" count=%u", count);
    }
}

// Every WGSL @group/@binding and HLSL register of the entry's further-target bind views.
void print_target_bindings(SlangpackEntry entry) {
    for (const auto &t :
         table([&](size_t *n) { return slangpack_bind_target_bindings(entry, n); })) {
        if (t.kind == SLANGPACK_TARGET_BINDING_KIND_PUSH_CONSTANTS || t.space == SLANGPACK_ABSENT) {
            continue;
        }
        if (t.target == SLANGPACK_TARGET_WGSL) {
            std::printf("wgsl_binding group=%u binding=%u", t.space, t.index);
        } else if (t.target == SLANGPACK_TARGET_HLSL) {
            std::printf("hlsl_register register=%c%u space=%u", static_cast<char>(t.register_class),
                        t.index, t.space);
        } else {
            continue;
        }
        print_count(t.count, t.count == 0);
        std::printf(" kind=%s", target_kind_name(t.kind));
        print("path", slangpack_entry_string(entry, t.path));
        std::printf("\n");
    }
}

// The D3D12 root parameters of the pipeline of all the entry's entry points, for an entry
// baked for HLSL.
bool print_root_parameters(SlangpackEntry entry) {
    size_t len = 0;
    std::vector<SlangpackStr> names(slangpack_entry_entry_point_count(entry));
    if (names.empty() ||
        slangpack_entry_point_code(entry, 0, SLANGPACK_TARGET_HLSL, &len, nullptr) == nullptr) {
        return true;
    }
    for (size_t i = 0; i < names.size(); ++i) {
        SlangpackEntryPoint ep;
        if (slangpack_entry_entry_point(entry, i, &ep)) {
            names[i] = ep.name;
        }
    }
    SlangpackPipeline pipeline;
    SlangpackError error{};
    if (slangpack_entry_pipeline_init(entry, names.data(), names.size(), &pipeline, &error) !=
        SLANGPACK_ERROR_KIND_OK) {
        return true;  // entry points that make no one pipeline
    }
    size_t param_count = 0;
    size_t range_count = 0;
    if (slangpack_pipeline_d3d12_root_parameters(&pipeline, nullptr, 0, &param_count, nullptr, 0,
                                                 &range_count, &error) != SLANGPACK_ERROR_KIND_OK) {
        std::fprintf(stderr, "root parameters: %s\n", error.message);
        return false;
    }
    std::vector<SlangpackD3d12RootParameter> params(param_count);
    std::vector<SlangpackD3d12Range> ranges(range_count);
    slangpack_pipeline_d3d12_root_parameters(&pipeline, params.data(), params.size(), &param_count,
                                             ranges.data(), ranges.size(), &range_count, &error);
    constexpr const char *kTypeNames[] = {"SRV", "UAV", "CBV", "Sampler"};
    for (size_t i = 0; i < params.size(); ++i) {
        const auto &p = params[i];
        if (p.parameter_type == SLANGPACK_D3D12_ROOT_PARAMETER_CONSTANTS) {
            std::printf("d3d12_root_constants index=%zu register=b%u space=%u values=%u", i,
                        p.shader_register, p.space, p.values);
            print("path", slangpack_entry_string(p.entry, p.binding->path));
            std::printf("\n");
            continue;
        }
        std::printf("d3d12_table index=%zu space=%u samplers=%u ranges=%u\n", i, p.space,
                    p.samplers, p.range_count);
        for (uint32_t r = p.first_range; r < p.first_range + p.range_count; ++r) {
            const auto &range = ranges[r];
            std::printf("d3d12_range table=%zu type=%s base=%u space=%u", i,
                        kTypeNames[range.range_type & 3], range.base_register, range.space);
            print_count(range.num_descriptors, range.num_descriptors == SLANGPACK_D3D12_UNBOUNDED);
            print("path", slangpack_entry_string(range.entry, range.binding->path));
            std::printf("\n");
        }
    }
    slangpack_pipeline_d3d12_root_signature(&pipeline, nullptr, 0, &len, &error);
    std::vector<char> text(len + 1);
    slangpack_pipeline_d3d12_root_signature(&pipeline, text.data(), text.size(), &len, &error);
    std::printf("d3d12_root_signature %s\n", text.data());
    return true;
}

bool print_entry(SlangpackEntry entry) {
    std::printf("entry");
    print("key", slangpack_entry_key(entry));
    std::printf("\n");

    for (size_t i = 0; i < slangpack_entry_entry_point_count(entry); ++i) {
        SlangpackEntryPoint ep;
        if (!slangpack_entry_entry_point(entry, i, &ep)) {
            return false;
        }
        std::printf("entry_point");
        print("name", ep.name);
        print("spirv_entry", ep.spirv_entry_name);
        std::printf(" stage=%u threads=%u,%u,%u spirv_words=%zu magic=0x%08x\n", ep.stage,
                    ep.thread_group_size[0], ep.thread_group_size[1], ep.thread_group_size[2],
                    ep.spirv_word_count, ep.spirv_word_count ? ep.spirv[0] : 0u);
    }

    for (const auto &b : table([&](size_t *n) { return slangpack_bind_bindings(entry, n); })) {
        SlangpackStr path = slangpack_entry_string(entry, b.path);
        std::printf("binding set=%u binding=%u type=%u count=%u count_kind=%u stages=0x%x", b.set,
                    b.binding, b.descriptor_type, b.count, b.count_kind, b.stage_flags);
        print("path", path);
        std::printf("\n");
        if (slangpack_bind_find_binding(entry, path.ptr, path.len) != &b) {
            std::fprintf(stderr, "lookup of %.*s failed\n", static_cast<int>(path.len), path.ptr);
            return false;
        }
    }

    std::vector<VkPushConstantRange> push_ranges;
    for (const auto &p : table([&](size_t *n) { return slangpack_bind_push_constants(entry, n); })) {
        std::printf("push_constant");
        print("name", slangpack_entry_string(entry, p.name));
        std::printf(" offset=%u size=%u stages=0x%x\n", p.offset, p.size, p.stage_flags);
        push_ranges.push_back(VkPushConstantRange{p.stage_flags, p.offset, p.size});
    }

    std::vector<SetLayout> layouts(slangpack_bind_set_slot_count(entry));
    for (uint32_t set = 0; set < layouts.size(); ++set) {
        build(layouts[set], entry, set);
        const auto &info = layouts[set].info;
        std::printf("vk_set_layout set=%u bindingCount=%u flags=0x%x\n", set, info.bindingCount,
                    info.flags);
        for (const auto &vk : layouts[set].bindings) {
            std::printf("vk_binding set=%u binding=%u descriptorType=%u descriptorCount=%u "
                        "stageFlags=0x%x\n",
                        set, vk.binding, static_cast<unsigned>(vk.descriptorType),
                        vk.descriptorCount, vk.stageFlags);
        }
    }
    VkPipelineLayoutCreateInfo pipeline{};
    pipeline.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pipeline.setLayoutCount = static_cast<uint32_t>(layouts.size());
    pipeline.pushConstantRangeCount = static_cast<uint32_t>(push_ranges.size());
    pipeline.pPushConstantRanges = push_ranges.empty() ? nullptr : push_ranges.data();
    std::printf("vk_pipeline_layout setLayoutCount=%u pushConstantRangeCount=%u\n",
                pipeline.setLayoutCount, pipeline.pushConstantRangeCount);
    print_target_bindings(entry);
    return print_root_parameters(entry);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s PACKAGE\n", argv[0]);
        return 2;
    }
    std::string_view path = argv[1];
    SlangpackPackage *raw = nullptr;
    SlangpackError error{};
    if (slangpack_package_open(path.data(), path.size(), &raw, &error) != SLANGPACK_ERROR_KIND_OK) {
        std::fprintf(stderr, "%s: %s (kind %u, at offset 0x%llx)\n", argv[1], error.message,
                     static_cast<unsigned>(error.kind),
                     static_cast<unsigned long long>(error.offset));
        return 1;
    }
    PackagePtr package(raw);
    for (size_t i = 0; i < slangpack_package_entry_count(package.get()); ++i) {
        SlangpackEntry entry;
        if (slangpack_package_entry_at(package.get(), i, &entry, &error) != SLANGPACK_ERROR_KIND_OK ||
            !print_entry(entry)) {
            return 1;
        }
    }
    return 0;
}

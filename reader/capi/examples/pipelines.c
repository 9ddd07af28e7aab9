/*
 * Builds every pipeline of a package on a real Vulkan device with the Khronos validation
 * layer, from the C API alone: for each entry, each compute entry point, and each fragment
 * entry point with the entry's vertex stage. A fragment-only entry takes its vertex stage
 * from another entry (one stage per file): `X.frag` from `X.vert` when the package has it,
 * otherwise from the VERTEX_KEY:ENTRY_POINT argument. Set layouts, binding flags, the
 * pipeline layout's push-constant ranges, stage flags and `pName` all come from
 * `slangpack_pipeline_*` and `SlangpackEntryPoint`. Exits 1 on any validation message.
 * Valid C11 and C++17.
 *
 *   cc -std=c11 -I reader/capi/include pipelines.c target/debug/libslangpack_c.a \
 *      -lvulkan -lpthread -ldl -lm
 *   ./a.out shaders.slangpack fullscreen_vertex:vertexMain
 */
#include <slangpack.h>
#include <vulkan/vulkan.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Descriptors reserved for an unbounded (bindless) array: the engine's choice. */
#define UNBOUNDED_CAPACITY 64u
/* At most this many stages per pipeline here (a vertex/fragment pair, or one kernel). */
#define MAX_STAGES 2
#define MUTABLE_EXT 1000351000u

static unsigned validation_messages = 0;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)types;
    (void)user;
    if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        fprintf(stderr, "validation: %s\n", data->pMessage);
        validation_messages++;
    }
    return VK_FALSE;
}

typedef struct Gpu {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkDevice device;
    int indexing; /* descriptor indexing: unbounded arrays can get a layout */
} Gpu;

static int gpu_init(Gpu *gpu) {
    memset(gpu, 0, sizeof *gpu);
    VkApplicationInfo app;
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.apiVersion = VK_API_VERSION_1_3;
    VkDebugUtilsMessengerCreateInfoEXT messenger;
    memset(&messenger, 0, sizeof messenger);
    messenger.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger.pfnUserCallback = on_message;
    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkInstanceCreateInfo info;
    memset(&info, 0, sizeof info);
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pNext = &messenger;
    info.pApplicationInfo = &app;
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = layers;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = extensions;
    if (vkCreateInstance(&info, NULL, &gpu->instance) != VK_SUCCESS) {
        fprintf(stderr, "vkCreateInstance with the validation layer failed\n");
        return 1;
    }
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            gpu->instance, "vkCreateDebugUtilsMessengerEXT");
    if (!create_messenger ||
        create_messenger(gpu->instance, &messenger, NULL, &gpu->messenger) != VK_SUCCESS) {
        fprintf(stderr, "vkCreateDebugUtilsMessengerEXT failed\n");
        return 1;
    }

    /* The first CPU device (lavapipe), else the first device. */
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(gpu->instance, &count, NULL);
    VkPhysicalDevice *devices = (VkPhysicalDevice *)calloc(count ? count : 1, sizeof *devices);
    vkEnumeratePhysicalDevices(gpu->instance, &count, devices);
    for (uint32_t i = 0; i < count && !gpu->physical; i++) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(devices[i], &props);
        if (props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
            gpu->physical = devices[i];
        }
    }
    if (!gpu->physical && count) {
        gpu->physical = devices[0];
    }
    free(devices);
    if (!gpu->physical) {
        fprintf(stderr, "no Vulkan device\n");
        return 1;
    }
    VkPhysicalDeviceProperties chosen;
    vkGetPhysicalDeviceProperties(gpu->physical, &chosen);
    printf("device %s\n", chosen.deviceName);

    /* Enable every core feature the device has (dynamic rendering, descriptor indexing). */
    VkPhysicalDeviceVulkan13Features v13;
    memset(&v13, 0, sizeof v13);
    v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    VkPhysicalDeviceVulkan12Features v12;
    memset(&v12, 0, sizeof v12);
    v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    v12.pNext = &v13;
    VkPhysicalDeviceVulkan11Features v11;
    memset(&v11, 0, sizeof v11);
    v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    v11.pNext = &v12;
    VkPhysicalDeviceFeatures2 features;
    memset(&features, 0, sizeof features);
    features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features.pNext = &v11;
    vkGetPhysicalDeviceFeatures2(gpu->physical, &features);
    if (!v13.dynamicRendering) {
        fprintf(stderr, "the device lacks dynamic rendering\n");
        return 1;
    }
    gpu->indexing = v12.runtimeDescriptorArray && v12.descriptorBindingPartiallyBound &&
                    v12.descriptorBindingVariableDescriptorCount &&
                    v12.descriptorBindingSampledImageUpdateAfterBind &&
                    v12.descriptorBindingStorageImageUpdateAfterBind &&
                    v12.descriptorBindingStorageBufferUpdateAfterBind &&
                    v12.descriptorBindingUniformBufferUpdateAfterBind;

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue;
    memset(&queue, 0, sizeof queue);
    queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue.queueFamilyIndex = 0;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkDeviceCreateInfo device;
    memset(&device, 0, sizeof device);
    device.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device.pNext = &features;
    device.queueCreateInfoCount = 1;
    device.pQueueCreateInfos = &queue;
    if (vkCreateDevice(gpu->physical, &device, NULL, &gpu->device) != VK_SUCCESS) {
        fprintf(stderr, "vkCreateDevice failed\n");
        return 1;
    }
    return 0;
}

static void gpu_finish(Gpu *gpu) {
    if (gpu->device) {
        vkDestroyDevice(gpu->device, NULL);
    }
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            gpu->instance, "vkDestroyDebugUtilsMessengerEXT");
    if (destroy_messenger && gpu->messenger) {
        destroy_messenger(gpu->instance, gpu->messenger, NULL);
    }
    if (gpu->instance) {
        vkDestroyInstance(gpu->instance, NULL);
    }
}

/* One stage of a pipeline: an entry point of an entry. */
typedef struct Stage {
    SlangpackEntry entry;
    SlangpackEntryPoint ep;
    uint32_t index; /* the entry point's index in its entry */
} Stage;

/* Bytes of one vertex input location: components times the scalar's size. */
static uint32_t location_size(const SlangpackVertexInput *input) {
    uint32_t scalar = 4;
    switch (input->scalar_type) {
    case 7:  /* float16 */
    case 12: /* int16 */
    case 13: /* uint16 */
        scalar = 2;
        break;
    case 5: /* int64 */
    case 6: /* uint64 */
    case 9: /* float64 */
        scalar = 8;
        break;
    case 10: /* int8 */
    case 11: /* uint8 */
        scalar = 1;
        break;
    default:
        break;
    }
    return scalar * input->component_count;
}

/* A copy of a SPIR-V module whose `OpSource` language operand says Unknown (0) instead of
 * Slang (11). Debian 12's validation layer (1.3.239) embeds a SPIRV-Tools that predates
 * source language 11 and rejects the whole module for it; `OpSource` is debug information,
 * so nothing else changes and every other check sees the stored code. Free the result. */
static uint32_t *for_old_validator(const uint32_t *words, size_t count) {
    uint32_t *out = (uint32_t *)malloc((count ? count : 1) * sizeof *out);
    memcpy(out, words, count * sizeof *out);
    for (size_t at = 5; at < count;) {
        uint32_t length = out[at] >> 16, opcode = out[at] & 0xffffu;
        if (length == 0) {
            break;
        }
        if (opcode == 3 /* OpSource */ && at + 1 < count && out[at + 1] == 11) {
            out[at + 1] = 0;
        }
        at += length;
    }
    return out;
}

/* Builds the pipeline `layout` describes for `stages` (one compute stage, or vertex then
 * fragment). Returns 0 when built, 1 on failure, 2 when skipped (the device lacks a feature
 * the layout needs). */
static int build(const Gpu *gpu, const SlangpackPipeline *layout, const Stage *stages,
                 uint32_t stage_count) {
    int status = 0;
    uint32_t slots = slangpack_pipeline_set_slot_count(layout);
    VkDescriptorSetLayout *set_layouts =
        (VkDescriptorSetLayout *)calloc(slots ? slots : 1, sizeof *set_layouts);
    for (uint32_t set = 0; set < slots && status == 0; set++) {
        size_t n = slangpack_pipeline_set_bindings(layout, set, NULL, 0);
        SlangpackPipelineBinding *items =
            (SlangpackPipelineBinding *)calloc(n ? n : 1, sizeof *items);
        VkDescriptorSetLayoutBinding *bindings =
            (VkDescriptorSetLayoutBinding *)calloc(n ? n : 1, sizeof *bindings);
        VkDescriptorBindingFlags *flags =
            (VkDescriptorBindingFlags *)calloc(n ? n : 1, sizeof *flags);
        slangpack_pipeline_set_bindings(layout, set, items, n);
        int unbounded = 0;
        for (size_t i = 0; i < n; i++) {
            const SlangpackDescriptorBinding *record = items[i].record;
            if (record->descriptor_type == MUTABLE_EXT) {
                status = 2; /* needs VK_EXT_mutable_descriptor_type: not enabled here */
            }
            if (record->count_kind == SLANGPACK_COUNT_UNBOUNDED) {
                unbounded = 1;
                if (!gpu->indexing) {
                    status = 2;
                }
            }
            bindings[i].binding = record->binding;
            bindings[i].descriptorType = (VkDescriptorType)record->descriptor_type;
            bindings[i].descriptorCount =
                record->count_kind == SLANGPACK_COUNT_UNBOUNDED ? UNBOUNDED_CAPACITY : record->count;
            bindings[i].stageFlags = items[i].stage_flags;
            flags[i] = items[i].binding_flags;
        }
        VkDescriptorSetLayoutBindingFlagsCreateInfo flags_info;
        memset(&flags_info, 0, sizeof flags_info);
        flags_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO;
        flags_info.bindingCount = (uint32_t)n;
        flags_info.pBindingFlags = flags;
        VkDescriptorSetLayoutCreateInfo info;
        memset(&info, 0, sizeof info);
        info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
        info.bindingCount = (uint32_t)n;
        info.pBindings = n ? bindings : NULL;
        if (unbounded) {
            info.pNext = &flags_info;
            info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
        }
        if (status == 0 &&
            vkCreateDescriptorSetLayout(gpu->device, &info, NULL, &set_layouts[set]) != VK_SUCCESS) {
            fprintf(stderr, "vkCreateDescriptorSetLayout failed for set %u\n", set);
            status = 1;
        }
        free(flags);
        free(bindings);
        free(items);
    }

    size_t push_count = slangpack_pipeline_push_constants(layout, NULL, 0);
    SlangpackPipelinePushConstant *push_items =
        (SlangpackPipelinePushConstant *)calloc(push_count ? push_count : 1, sizeof *push_items);
    VkPushConstantRange *ranges =
        (VkPushConstantRange *)calloc(push_count ? push_count : 1, sizeof *ranges);
    slangpack_pipeline_push_constants(layout, push_items, push_count);
    for (size_t i = 0; i < push_count; i++) {
        ranges[i].stageFlags = push_items[i].stage_flags;
        ranges[i].offset = push_items[i].record->offset;
        ranges[i].size = push_items[i].record->size;
    }
    VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
    if (status == 0) {
        VkPipelineLayoutCreateInfo info;
        memset(&info, 0, sizeof info);
        info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
        info.setLayoutCount = slots;
        info.pSetLayouts = slots ? set_layouts : NULL;
        info.pushConstantRangeCount = (uint32_t)push_count;
        info.pPushConstantRanges = push_count ? ranges : NULL;
        if (vkCreatePipelineLayout(gpu->device, &info, NULL, &pipeline_layout) != VK_SUCCESS) {
            fprintf(stderr, "vkCreatePipelineLayout failed\n");
            status = 1;
        }
    }

    VkShaderModule modules[MAX_STAGES];
    VkPipelineShaderStageCreateInfo shader_stages[MAX_STAGES];
    memset(modules, 0, sizeof modules);
    memset(shader_stages, 0, sizeof shader_stages);
    for (uint32_t s = 0; s < stage_count && status == 0; s++) {
        VkShaderModuleCreateInfo info;
        memset(&info, 0, sizeof info);
        info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
        /* An engine passes `ep.spirv` itself; this copy only works around an old layer. */
        uint32_t *code = for_old_validator(stages[s].ep.spirv, stages[s].ep.spirv_word_count);
        info.codeSize = stages[s].ep.spirv_word_count * 4;
        info.pCode = code;
        if (vkCreateShaderModule(gpu->device, &info, NULL, &modules[s]) != VK_SUCCESS) {
            fprintf(stderr, "vkCreateShaderModule failed\n");
            status = 1;
        }
        free(code);
        shader_stages[s].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        shader_stages[s].stage = (VkShaderStageFlagBits)stages[s].ep.vk_stage;
        shader_stages[s].module = modules[s];
        shader_stages[s].pName = stages[s].ep.spirv_entry_name_c;
    }

    VkPipeline pipeline = VK_NULL_HANDLE;
    if (status == 0 && stage_count == 1) {
        VkComputePipelineCreateInfo info;
        memset(&info, 0, sizeof info);
        info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
        info.stage = shader_stages[0];
        info.layout = pipeline_layout;
        if (vkCreateComputePipelines(gpu->device, VK_NULL_HANDLE, 1, &info, NULL, &pipeline) !=
            VK_SUCCESS) {
            fprintf(stderr, "vkCreateComputePipelines failed\n");
            status = 1;
        }
    } else if (status == 0) {
        /* The vertex stage's used inputs, packed tightly in location order into binding 0. */
        size_t input_count = 0;
        const SlangpackVertexInput *inputs =
            slangpack_bind_vertex_inputs(stages[0].entry, stages[0].index, &input_count);
        size_t location_total = 0;
        for (size_t i = 0; i < input_count; i++) {
            location_total += inputs[i].location_count;
        }
        VkVertexInputAttributeDescription *attributes =
            (VkVertexInputAttributeDescription *)calloc(location_total ? location_total : 1,
                                                        sizeof *attributes);
        uint32_t attribute_count = 0;
        uint32_t stride = 0;
        for (size_t i = 0; i < input_count; i++) {
            if (!(inputs[i].flags & SLANGPACK_VERTEX_INPUT_USED) || inputs[i].format == 0) {
                continue;
            }
            for (uint32_t l = 0; l < inputs[i].location_count; l++) {
                attributes[attribute_count].location = inputs[i].location + l;
                attributes[attribute_count].binding = 0;
                attributes[attribute_count].format = (VkFormat)inputs[i].format;
                attributes[attribute_count].offset = stride;
                stride += location_size(&inputs[i]);
                attribute_count++;
            }
        }
        VkVertexInputBindingDescription vertex_binding;
        memset(&vertex_binding, 0, sizeof vertex_binding);
        vertex_binding.binding = 0;
        vertex_binding.stride = stride;
        vertex_binding.inputRate = VK_VERTEX_INPUT_RATE_VERTEX;
        VkPipelineVertexInputStateCreateInfo vertex_input;
        memset(&vertex_input, 0, sizeof vertex_input);
        vertex_input.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO;
        vertex_input.vertexBindingDescriptionCount = attribute_count ? 1 : 0;
        vertex_input.pVertexBindingDescriptions = attribute_count ? &vertex_binding : NULL;
        vertex_input.vertexAttributeDescriptionCount = attribute_count;
        vertex_input.pVertexAttributeDescriptions = attribute_count ? attributes : NULL;

        VkPipelineInputAssemblyStateCreateInfo assembly;
        memset(&assembly, 0, sizeof assembly);
        assembly.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO;
        assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
        VkPipelineViewportStateCreateInfo viewport;
        memset(&viewport, 0, sizeof viewport);
        viewport.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO;
        viewport.viewportCount = 1;
        viewport.scissorCount = 1;
        VkPipelineRasterizationStateCreateInfo raster;
        memset(&raster, 0, sizeof raster);
        raster.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO;
        raster.polygonMode = VK_POLYGON_MODE_FILL;
        raster.cullMode = VK_CULL_MODE_NONE;
        raster.lineWidth = 1.0f;
        VkPipelineMultisampleStateCreateInfo multisample;
        memset(&multisample, 0, sizeof multisample);
        multisample.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO;
        multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
        VkPipelineColorBlendAttachmentState blend_attachment;
        memset(&blend_attachment, 0, sizeof blend_attachment);
        blend_attachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                          VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
        VkPipelineColorBlendStateCreateInfo blend;
        memset(&blend, 0, sizeof blend);
        blend.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO;
        blend.attachmentCount = 1;
        blend.pAttachments = &blend_attachment;
        VkDynamicState dynamic_states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
        VkPipelineDynamicStateCreateInfo dynamic;
        memset(&dynamic, 0, sizeof dynamic);
        dynamic.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO;
        dynamic.dynamicStateCount = 2;
        dynamic.pDynamicStates = dynamic_states;
        VkFormat color_format = VK_FORMAT_R8G8B8A8_UNORM;
        VkPipelineRenderingCreateInfo rendering;
        memset(&rendering, 0, sizeof rendering);
        rendering.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO;
        rendering.colorAttachmentCount = 1;
        rendering.pColorAttachmentFormats = &color_format;

        VkGraphicsPipelineCreateInfo info;
        memset(&info, 0, sizeof info);
        info.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
        info.pNext = &rendering;
        info.stageCount = stage_count;
        info.pStages = shader_stages;
        info.pVertexInputState = &vertex_input;
        info.pInputAssemblyState = &assembly;
        info.pViewportState = &viewport;
        info.pRasterizationState = &raster;
        info.pMultisampleState = &multisample;
        info.pColorBlendState = &blend;
        info.pDynamicState = &dynamic;
        info.layout = pipeline_layout;
        if (vkCreateGraphicsPipelines(gpu->device, VK_NULL_HANDLE, 1, &info, NULL, &pipeline) !=
            VK_SUCCESS) {
            fprintf(stderr, "vkCreateGraphicsPipelines failed\n");
            status = 1;
        }
        free(attributes);
    }

    if (status == 0) {
        printf("pipeline");
        for (uint32_t s = 0; s < stage_count; s++) {
            SlangpackStr key = slangpack_entry_key(stages[s].entry);
            printf("%s%.*s:%.*s", s ? "+" : " ", (int)key.len, key.ptr,
                   (int)stages[s].ep.name.len, stages[s].ep.name.ptr);
        }
        printf(" stages=0x%x sets=%u push=", slangpack_pipeline_stage_flags(layout), slots);
        for (size_t i = 0; i < push_count; i++) {
            printf("%s%u..%u@0x%x", i ? "," : "", ranges[i].offset,
                   ranges[i].offset + ranges[i].size, ranges[i].stageFlags);
        }
        printf("\n");
    }
    if (pipeline) {
        vkDestroyPipeline(gpu->device, pipeline, NULL);
    }
    for (uint32_t s = 0; s < stage_count; s++) {
        if (modules[s]) {
            vkDestroyShaderModule(gpu->device, modules[s], NULL);
        }
    }
    if (pipeline_layout) {
        vkDestroyPipelineLayout(gpu->device, pipeline_layout, NULL);
    }
    for (uint32_t set = 0; set < slots; set++) {
        if (set_layouts[set]) {
            vkDestroyDescriptorSetLayout(gpu->device, set_layouts[set], NULL);
        }
    }
    free(ranges);
    free(push_items);
    free(set_layouts);
    return status;
}

/* Fills `stage` with entry point `index` of `entry`. */
static int stage_of(SlangpackEntry entry, uint32_t index, Stage *stage) {
    stage->entry = entry;
    stage->index = index;
    return slangpack_entry_entry_point(entry, index, &stage->ep) ? 0 : 1;
}

/* Looks up `key` (`key_len` bytes) and its entry point `name`. */
static int find_stage(const SlangpackPackage *package, const char *key, size_t key_len,
                      const char *name, size_t name_len, Stage *stage) {
    SlangpackError error;
    if (slangpack_package_entry(package, key, key_len, &stage->entry, &error) !=
        SLANGPACK_ERROR_KIND_OK) {
        return 1;
    }
    size_t index = 0;
    if (!slangpack_entry_find_entry_point(stage->entry, name, name_len, &stage->ep, &index)) {
        return 1;
    }
    stage->index = (uint32_t)index;
    return 0;
}

/* Makes the pipeline of `stages` through slangpack_pipeline_init (one entry or several) and
 * builds it. Counts into `built` and `skipped`; returns nonzero on failure. */
static int make(const Gpu *gpu, const SlangpackPackage *package, const Stage *stages,
                uint32_t stage_count, unsigned *built, unsigned *skipped) {
    SlangpackPipelineStage pairs[MAX_STAGES];
    for (uint32_t s = 0; s < stage_count; s++) {
        pairs[s].key = slangpack_entry_key(stages[s].entry);
        pairs[s].entry_point = stages[s].ep.name;
    }
    SlangpackPipeline layout;
    SlangpackError error;
    if (slangpack_pipeline_init(package, pairs, stage_count, &layout, &error) !=
        SLANGPACK_ERROR_KIND_OK) {
        printf("no pipeline %.*s: %s\n", (int)pairs[stage_count - 1].key.len,
               pairs[stage_count - 1].key.ptr, error.message);
        return 0; /* a refusal the package states is an answer, not a failure */
    }
    int status = build(gpu, &layout, stages, stage_count);
    if (status == 2) {
        SlangpackStr key = slangpack_entry_key(stages[0].entry);
        printf("skipped %.*s (the device lacks a feature its layout needs)\n", (int)key.len,
               key.ptr);
        (*skipped)++;
        return 0;
    }
    if (status == 0) {
        (*built)++;
    }
    return status;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s PACKAGE [VERTEX_KEY:ENTRY_POINT]\n", argv[0]);
        return 2;
    }
    SlangpackPackage *package = NULL;
    SlangpackError error;
    if (slangpack_package_open(argv[1], strlen(argv[1]), &package, &error) !=
        SLANGPACK_ERROR_KIND_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], error.message);
        return 1;
    }
    Gpu gpu;
    int status = gpu_init(&gpu);
    unsigned built = 0, skipped = 0;
    Stage fallback;
    int have_fallback = 0;
    if (status == 0 && argc == 3) {
        const char *colon = strchr(argv[2], ':');
        have_fallback = colon && find_stage(package, argv[2], (size_t)(colon - argv[2]),
                                            colon + 1, strlen(colon + 1), &fallback) == 0;
        if (!have_fallback) {
            fprintf(stderr, "no vertex stage %s in the package\n", argv[2]);
            status = 1;
        }
    }
    for (size_t i = 0; status == 0 && i < slangpack_package_entry_count(package); i++) {
        SlangpackEntry entry;
        if (slangpack_package_entry_at(package, i, &entry, &error) != SLANGPACK_ERROR_KIND_OK) {
            fprintf(stderr, "entry %zu: %s\n", i, error.message);
            status = 1;
            break;
        }
        size_t count = slangpack_entry_entry_point_count(entry);
        Stage vertex;
        int have_vertex = 0;
        for (size_t e = 0; e < count && !have_vertex; e++) {
            have_vertex = stage_of(entry, (uint32_t)e, &vertex) == 0 &&
                          vertex.ep.vk_stage == VK_SHADER_STAGE_VERTEX_BIT;
        }
        if (!have_vertex) {
            /* One stage per file: `X.frag` takes `X.vert`'s vertex stage. */
            SlangpackStr key = slangpack_entry_key(entry);
            if (key.len > 5 && memcmp(key.ptr + key.len - 5, ".frag", 5) == 0) {
                char vert_key[256];
                if (key.len < sizeof vert_key) {
                    memcpy(vert_key, key.ptr, key.len - 5);
                    memcpy(vert_key + key.len - 5, ".vert", 5);
                    SlangpackEntry vert_entry;
                    if (slangpack_package_entry(package, vert_key, key.len, &vert_entry,
                                                &error) == SLANGPACK_ERROR_KIND_OK) {
                        for (size_t e = 0;
                             e < slangpack_entry_entry_point_count(vert_entry) && !have_vertex;
                             e++) {
                            have_vertex = stage_of(vert_entry, (uint32_t)e, &vertex) == 0 &&
                                          vertex.ep.vk_stage == VK_SHADER_STAGE_VERTEX_BIT;
                        }
                    }
                }
            }
        }
        if (!have_vertex && have_fallback) {
            vertex = fallback;
            have_vertex = 1;
        }
        for (size_t e = 0; e < count && status == 0; e++) {
            Stage stages[MAX_STAGES];
            if (stage_of(entry, (uint32_t)e, &stages[0]) != 0) {
                status = 1;
                break;
            }
            uint32_t kind = stages[0].ep.vk_stage;
            if (kind == VK_SHADER_STAGE_COMPUTE_BIT) {
                status = make(&gpu, package, stages, 1, &built, &skipped);
            } else if (kind == VK_SHADER_STAGE_FRAGMENT_BIT && have_vertex) {
                stages[1] = stages[0];
                stages[0] = vertex;
                status = make(&gpu, package, stages, 2, &built, &skipped);
            }
            /* A vertex stage is built with its fragment stages; other stages need device
             * features (ray tracing, mesh shading) this example does not enable. */
        }
    }
    gpu_finish(&gpu);
    slangpack_package_close(package);
    printf("built=%u skipped=%u validation_messages=%u\n", built, skipped, validation_messages);
    return status != 0 || validation_messages != 0;
}

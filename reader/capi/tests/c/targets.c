/*
 * Prints, through the C API, every entry's further targets: each entry point's code per target
 * (length and the entry name inside it), every target binding (HLSL register class, index and
 * space; WGSL group/binding; Metal indices) and the HLSL and Metal member layouts (each
 * member's path from the Vulkan layout it parallels, with the target's offset, size and
 * strides) and every Metal argument buffer's struct (each member's path, kind, offset, size,
 * array count and stride, id, and its own binding's path for a resource).
 * tests/tests/c_api.rs compares the lines with the Rust reader's answers.
 *
 *   ./a.out shaders.slangpack
 */
#include <slangpack.h>

#include <stdio.h>
#include <string.h>

static int print_entry(SlangpackEntry entry) {
    SlangpackStr key = slangpack_entry_key(entry);
    for (size_t e = 0; e < slangpack_entry_entry_point_count(entry); e++) {
        static const uint32_t targets[] = {SLANGPACK_TARGET_WGSL, SLANGPACK_TARGET_GLSL,
                                           SLANGPACK_TARGET_HLSL, SLANGPACK_TARGET_METAL};
        for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
            size_t len = 0;
            SlangpackStr name;
            const uint8_t *code = slangpack_entry_point_code(entry, e, targets[t], &len, &name);
            if (code == NULL) {
                continue;
            }
            printf("code %.*s %zu %u %zu %.*s\n", (int)key.len, key.ptr, e, targets[t], len,
                   (int)name.len, name.ptr);
        }
    }
    size_t binding_count = 0;
    const SlangpackTargetBinding *b = slangpack_bind_target_bindings(entry, &binding_count);
    for (size_t i = 0; i < binding_count; i++) {
        SlangpackStr path = slangpack_entry_string(entry, b[i].path);
        char class_name[2] = {(char)b[i].register_class, 0};
        printf("binding %.*s %u %.*s %s %u %u\n", (int)key.len, key.ptr, b[i].target,
               (int)path.len, path.ptr, b[i].register_class ? class_name : "-", b[i].index,
               b[i].space);
    }
    size_t buffer_count = 0, member_count = 0, layout_count = 0;
    const SlangpackTargetBuffer *buffers = slangpack_bind_target_buffers(entry, &buffer_count);
    const SlangpackTargetMember *members = slangpack_bind_target_members(entry, &member_count);
    const SlangpackBufferLayout *layouts = slangpack_bind_buffer_layouts(entry, &layout_count);
    for (size_t i = 0; i < buffer_count; i++) {
        const SlangpackTargetBuffer *t = &buffers[i];
        if (t->target_binding >= binding_count || t->buffer_layout >= layout_count ||
            t->first_member + t->member_count > member_count) {
            fprintf(stderr, "target buffer %zu: an index out of range\n", i);
            return 1;
        }
        (void)layouts;
        size_t vulkan_count = 0;
        const SlangpackBufferMember *vulkan =
            slangpack_bind_buffer_members(entry, t->buffer_layout, &vulkan_count);
        SlangpackStr path = slangpack_entry_string(entry, b[t->target_binding].path);
        printf("buffer %.*s %u %.*s %u\n", (int)key.len, key.ptr, b[t->target_binding].target,
               (int)path.len, path.ptr, t->size);
        for (uint32_t k = 0; k < t->member_count; k++) {
            if (k >= vulkan_count) {
                fprintf(stderr, "target buffer %zu: member %u out of range\n", i, k);
                return 1;
            }
            const SlangpackTargetMember *m = &members[t->first_member + k];
            SlangpackStr member = slangpack_entry_string(entry, vulkan[k].path);
            printf("member %.*s %u %.*s %.*s %u %u %u %u\n", (int)key.len, key.ptr,
                   b[t->target_binding].target, (int)path.len, path.ptr, (int)member.len,
                   member.ptr, m->offset, m->size, m->array_stride, m->matrix_stride);
        }
    }
    for (size_t i = 0; i <= binding_count; i++) {
        size_t count = 0;
        const SlangpackArgumentBuffer *ab = NULL;
        const SlangpackArgumentBufferMember *m =
            slangpack_argument_buffer_members(entry, i, &count, &ab);
        if (m == NULL) {
            if (count != 0 || ab != NULL) {
                fprintf(stderr, "binding %zu: no struct, but a count or a record\n", i);
                return 1;
            }
            continue;
        }
        SlangpackStr path = slangpack_entry_string(entry, b[i].path);
        printf("argument_buffer %.*s %.*s %u %u %zu\n", (int)key.len, key.ptr, (int)path.len,
               path.ptr, ab->size, ab->alignment, count);
        for (size_t k = 0; k < count; k++) {
            SlangpackStr member = slangpack_entry_string(entry, m[k].path);
            SlangpackStr own = {"-", 1};
            if (m[k].target_binding != SLANGPACK_ABSENT) {
                own = slangpack_entry_string(entry, b[m[k].target_binding].path);
            }
            printf("argument %.*s %.*s %.*s %u %u %u %u %u %u %.*s\n", (int)key.len, key.ptr,
                   (int)path.len, path.ptr, (int)member.len, member.ptr, m[k].kind, m[k].offset,
                   m[k].size, m[k].count, m[k].stride, m[k].id, (int)own.len, own.ptr);
        }
    }
    return 0;
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
        fprintf(stderr, "%s: %s\n", argv[1], error.message);
        return 1;
    }
    int status = 0;
    for (size_t i = 0; i < slangpack_package_entry_count(package) && status == 0; i++) {
        SlangpackEntry entry;
        if (slangpack_package_entry_at(package, i, &entry, &error) != SLANGPACK_ERROR_KIND_OK) {
            fprintf(stderr, "entry %zu: %s\n", i, error.message);
            return 1;
        }
        status = print_entry(entry);
    }
    slangpack_package_close(package);
    return status;
}

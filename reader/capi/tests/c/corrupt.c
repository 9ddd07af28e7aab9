/*
 * Feeds damaged packages through the C API: every truncation of PACKAGE (copied and borrowed)
 * must be refused with an error, and every single-byte corruption must be refused or open to a
 * package whose every table can be walked. Run under AddressSanitizer and
 * UndefinedBehaviorSanitizer by tests/c_api.rs: a crash, an out-of-bounds read or a leak fails.
 *
 * Prints "truncations=N refused=N corruptions=N refused=R walked=W". With a second argument,
 * a file of variants (each an 8-byte little-endian length and that many bytes: damaged
 * packages whose checksums were recomputed, so validation itself is what refuses them), also
 * prints one line per variant, "variant I kind K", K being 0 for one that opened and walked.
 */
#include <slangpack.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long sink;

static void touch(const void *p, size_t bytes) {
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < bytes; i++) {
        sink += c[i];
    }
}

static void touch_str(SlangpackStr s) { touch(s.ptr, s.len); }

#define WALK(call, type)                                                                         \
    do {                                                                                         \
        size_t n_ = 0;                                                                           \
        const type *t_ = call;                                                                   \
        if ((t_ == NULL) != (n_ == 0)) {                                                         \
            fprintf(stderr, "%s: NULL iff empty violated\n", #call);                             \
            exit(3);                                                                             \
        }                                                                                        \
        touch(t_, n_ * sizeof(type));                                                            \
    } while (0)

/* Reads every byte every accessor hands out. */
static void walk(const SlangpackPackage *package) {
    for (size_t i = 0; i < slangpack_package_entry_count(package); i++) {
        SlangpackEntry e;
        if (slangpack_package_entry_at(package, i, &e, NULL) != SLANGPACK_ERROR_KIND_OK) {
            exit(4);
        }
        SlangpackStr key = slangpack_entry_key(e);
        SlangpackEntry again;
        if (slangpack_package_entry(package, key.ptr, key.len, &again, NULL) !=
                SLANGPACK_ERROR_KIND_OK ||
            again.index != i) {
            fprintf(stderr, "entry %zu is not found by its key\n", i);
            exit(5);
        }
        touch_str(key);
        for (size_t j = 0; j < slangpack_entry_entry_point_count(e); j++) {
            SlangpackEntryPoint ep;
            if (!slangpack_entry_entry_point(e, j, &ep)) {
                exit(6);
            }
            touch_str(ep.name);
            touch_str(ep.spirv_entry_name);
            touch(ep.spirv, ep.spirv_word_count * 4);
            if (ep.layout) {
                touch(ep.layout, sizeof *ep.layout);
            }
        }
        for (size_t j = 0; j < slangpack_entry_dependency_count(e); j++) {
            SlangpackDependency d;
            if (!slangpack_entry_dependency(e, j, &d)) {
                exit(7);
            }
            touch_str(d.path);
        }
        const SlangpackReflectionHeader *h = slangpack_reflection_header(e);
        if (h) {
            touch(h, sizeof *h);
        }
        WALK(slangpack_reflection_types(e, &n_), SlangpackType);
        WALK(slangpack_reflection_type_layouts(e, &n_), SlangpackTypeLayout);
        WALK(slangpack_reflection_variables(e, &n_), SlangpackVariable);
        WALK(slangpack_reflection_var_layouts(e, &n_), SlangpackVarLayout);
        WALK(slangpack_reflection_functions(e, &n_), SlangpackFunction);
        WALK(slangpack_reflection_generics(e, &n_), SlangpackGeneric);
        WALK(slangpack_reflection_decls(e, &n_), SlangpackDecl);
        WALK(slangpack_reflection_entry_points(e, &n_), SlangpackEntryPointLayout);
        WALK(slangpack_reflection_attributes(e, &n_), SlangpackAttribute);
        WALK(slangpack_reflection_attribute_args(e, &n_), SlangpackAttributeArg);
        WALK(slangpack_reflection_modifiers(e, &n_), SlangpackModifier);
        WALK(slangpack_reflection_hashed_strings(e, &n_), SlangpackHashedString);
        WALK(slangpack_reflection_binding_ranges(e, &n_), SlangpackBindingRange);
        WALK(slangpack_reflection_descriptor_sets(e, &n_), SlangpackDescriptorSet);
        WALK(slangpack_reflection_descriptor_ranges(e, &n_), SlangpackDescriptorRange);
        WALK(slangpack_reflection_sub_object_ranges(e, &n_), SlangpackSubObjectRange);
        WALK(slangpack_reflection_u32_pool(e, &n_), uint32_t);
        size_t nvars = 0;
        const SlangpackVariable *vars = slangpack_reflection_variables(e, &nvars);
        for (size_t j = 0; j < nvars; j++) {
            touch_str(slangpack_entry_string(e, vars[j].name));
        }
        const SlangpackBindSummary *summary = slangpack_bind_summary(e);
        if (summary) {
            touch(summary, sizeof *summary);
        }
        WALK(slangpack_bind_sets(e, &n_), SlangpackDescriptorSetLayout);
        WALK(slangpack_bind_push_constants(e, &n_), SlangpackPushConstantRange);
        WALK(slangpack_bind_shader_record_blocks(e, &n_), SlangpackShaderRecordBlock);
        WALK(slangpack_bind_all_vertex_inputs(e, &n_), SlangpackVertexInput);
        WALK(slangpack_bind_specialization_constants(e, &n_), SlangpackSpecializationConstant);
        size_t nb = 0;
        const SlangpackDescriptorBinding *b = slangpack_bind_bindings(e, &nb);
        for (size_t j = 0; j < nb; j++) {
            /* A damaged (but valid) name index may miss: only the probe must be safe. */
            SlangpackStr path = slangpack_entry_string(e, b[j].path);
            touch(slangpack_bind_find_binding(e, path.ptr, path.len), 0);
            WALK(slangpack_bind_set_bindings(e, b[j].set, &n_), SlangpackDescriptorBinding);
        }
        size_t nl = 0;
        const SlangpackBufferLayout *layouts = slangpack_bind_buffer_layouts(e, &nl);
        for (size_t j = 0; j < nl; j++) {
            size_t nm = 0;
            const SlangpackBufferMember *m = slangpack_bind_buffer_members(e, (uint32_t)j, &nm);
            touch(m, nm * sizeof *m);
            for (size_t k = 0; k < nm; k++) {
                WALK(slangpack_bind_member_attributes(e, &m[k], &n_), SlangpackMemberAttribute);
            }
            SlangpackStr name = slangpack_entry_string(e, layouts[j].name);
            touch(slangpack_bind_find_buffer(e, name.ptr, name.len), 0);
        }
        WALK(slangpack_bind_argument_buffers(e, &n_), SlangpackArgumentBuffer);
        WALK(slangpack_bind_argument_buffer_members(e, &n_), SlangpackArgumentBufferMember);
        size_t nt = 0;
        touch(slangpack_bind_target_bindings(e, &nt), 0);
        for (size_t j = 0; j <= nt; j++) {
            size_t na = 0;
            const SlangpackArgumentBuffer *ab = NULL;
            const SlangpackArgumentBufferMember *am =
                slangpack_argument_buffer_members(e, j, &na, &ab);
            touch(am, na * sizeof *am);
            if (ab) {
                touch(ab, sizeof *ab);
            }
            for (size_t k = 0; k < na; k++) {
                touch_str(slangpack_entry_string(e, am[k].path));
            }
        }
    }
}

/* Opens `len` bytes both ways; returns 1 when both opened, 0 when both refused, exits when
 * they disagree or an error is malformed. */
static int open_both(const unsigned char *bytes, size_t len, unsigned long long *aligned) {
    SlangpackPackage *copied = NULL, *borrowed = NULL;
    SlangpackError e1, e2;
    memset(&e1, 0xAB, sizeof e1); /* garbage in: the API must write a whole error */
    memset(&e2, 0xAB, sizeof e2);
    SlangpackErrorKind k1 = slangpack_package_open_copy(bytes, len, &copied, &e1);
    memcpy(aligned, bytes, len);
    SlangpackErrorKind k2 = slangpack_package_open_borrowed(aligned, len, &borrowed, &e2);
    if (k1 != k2) {
        fprintf(stderr, "len %zu: copy gives %u, borrowed gives %u\n", len, (unsigned)k1,
                (unsigned)k2);
        exit(9);
    }
    /* Opening checks the directory; the full check loads every entry. Both count. */
    if (k1 == SLANGPACK_ERROR_KIND_OK) {
        k1 = slangpack_package_verify_all(copied, &e1);
        k2 = slangpack_package_verify_all(borrowed, &e2);
        if (k1 != k2) {
            fprintf(stderr, "len %zu: verify of copy gives %u, of borrowed %u\n", len,
                    (unsigned)k1, (unsigned)k2);
            exit(9);
        }
        if (k1 != SLANGPACK_ERROR_KIND_OK) {
            slangpack_package_close(copied);
            slangpack_package_close(borrowed);
            copied = borrowed = NULL;
        }
    }
    if (k1 != SLANGPACK_ERROR_KIND_OK) {
        if (copied || borrowed || e1.kind != k1 || e1.message_len == 0 ||
            e1.message_len >= SLANGPACK_ERROR_MESSAGE_CAPACITY ||
            e1.message[e1.message_len] != '\0' || strlen(e1.message) != e1.message_len ||
            e1.offset != e2.offset) {
            fprintf(stderr, "len %zu: malformed error\n", len);
            exit(10);
        }
        return 0;
    }
    walk(copied);
    walk(borrowed);
    slangpack_package_close(copied);
    slangpack_package_close(borrowed);
    return 1;
}

/* Opens and walks every variant of the file at `path`; prints each one's error kind. */
static void variants(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    unsigned char header[8];
    for (size_t i = 0; fread(header, 1, 8, f) == 8; i++) {
        size_t len = 0;
        for (int b = 7; b >= 0; b--) {
            len = len << 8 | header[b];
        }
        unsigned char *bytes = malloc(len ? len : 1);
        unsigned long long *aligned = malloc(len + 8);
        if (fread(bytes, 1, len, f) != len) {
            exit(2);
        }
        SlangpackPackage *p = NULL;
        SlangpackError e;
        SlangpackErrorKind kind = slangpack_package_open_copy(bytes, len, &p, &e);
        if (kind == SLANGPACK_ERROR_KIND_OK) {
            kind = slangpack_package_verify_all(p, &e);
        }
        open_both(bytes, len, aligned); /* walks it when it opens; both ways agree */
        slangpack_package_close(p);
        printf("variant %zu kind %u\n", i, (unsigned)kind);
        free(aligned);
        free(bytes);
    }
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s PACKAGE [VARIANTS]\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    unsigned char *bytes = malloc(1 << 20);
    size_t len = fread(bytes, 1, 1 << 20, f);
    fclose(f);
    /* 8-aligned scratch for the borrowed opens (malloc's alignment is at least 8 here). */
    unsigned long long *aligned = malloc(len + 8);

    size_t refused = 0;
    for (size_t n = 0; n < len; n++) {
        refused += !open_both(bytes, n, aligned);
    }
    printf("truncations=%zu refused=%zu", len, refused);

    size_t corrupt_refused = 0, walked = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char *copy = malloc(len);
        memcpy(copy, bytes, len);
        copy[i] ^= 0x5A;
        if (open_both(copy, len, aligned)) {
            walked++;
        } else {
            corrupt_refused++;
        }
        free(copy);
    }
    printf(" corruptions=%zu refused=%zu walked=%zu\n", len, corrupt_refused, walked);

    /* The whole package opens and walks; the borrowed open refuses misaligned memory. */
    if (open_both(bytes, len, aligned) != 1) {
        fprintf(stderr, "the intact package does not open\n");
        return 11;
    }
    SlangpackPackage *p = NULL;
    SlangpackError e;
    memcpy((unsigned char *)aligned + 1, bytes, len - 1);
    if (slangpack_package_open_borrowed((unsigned char *)aligned + 1, len - 1, &p, &e) !=
            SLANGPACK_ERROR_KIND_MISALIGNED ||
        p != NULL) {
        fprintf(stderr, "misaligned borrowed memory was not refused\n");
        return 12;
    }
    /* Invalid arguments are reported, not dereferenced. */
    if (slangpack_package_open_copy(NULL, 5, &p, &e) != SLANGPACK_ERROR_KIND_INVALID_ARGUMENT ||
        slangpack_package_open_copy(bytes, len, NULL, &e) != SLANGPACK_ERROR_KIND_INVALID_ARGUMENT ||
        slangpack_package_open(argv[1], strlen(argv[1]), NULL, NULL) !=
            SLANGPACK_ERROR_KIND_INVALID_ARGUMENT) {
        fprintf(stderr, "NULL arguments were not refused\n");
        return 13;
    }
    free(aligned);
    free(bytes);
    if (argc == 3) {
        variants(argv[2]);
    }
    return sink == 0xFFFFFFFFFFFFFFFFull; /* keep the reads */
}

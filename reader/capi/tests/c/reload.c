/*
 * Hot reload through the C API: opens PACKAGE with a reloader, renames NEW over it (as the
 * writer replaces packages), reloads, and prints what changed; the replaced package handed back
 * must still be readable. Then renames BROKEN over it: the reload must fail once, keep the
 * package in use, and not report the same file again. Run under AddressSanitizer and
 * UndefinedBehaviorSanitizer by tests/tests/c_reload.rs.
 *
 * usage: reload PACKAGE NEW BROKEN KEY BUFFER
 * prints: "same", then "change KEY KIND" per change, "old SIZE new SIZE" for BUFFER of KEY in
 * the replaced and the new package, "refused KIND", "kept N", "generation G".
 */
#include <slangpack.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned buffer_size(const SlangpackPackage *package, const char *key, const char *buffer) {
    SlangpackEntry entry;
    SlangpackError error;
    if (slangpack_package_entry(package, key, strlen(key), &entry, &error) !=
        SLANGPACK_ERROR_KIND_OK) {
        printf("no entry %s: %s\n", key, error.message);
        exit(1);
    }
    const SlangpackBufferLayout *layout = slangpack_bind_find_buffer(entry, buffer, strlen(buffer));
    return layout ? layout->size : 0u;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: reload PACKAGE NEW BROKEN KEY BUFFER\n");
        return 2;
    }
    const char *path = argv[1];
    SlangpackError error;
    SlangpackReloader *reloader = NULL;
    if (slangpack_reloader_open(path, strlen(path), &reloader, &error) != SLANGPACK_ERROR_KIND_OK) {
        printf("open failed: %s\n", error.message);
        return 1;
    }
    bool reloaded = true;
    SlangpackPackage *previous = NULL;
    if (slangpack_reloader_reload(reloader, &reloaded, &previous, &error) !=
            SLANGPACK_ERROR_KIND_OK ||
        reloaded || previous != NULL) {
        printf("an unchanged file was reloaded\n");
        return 1;
    }
    printf("same\n");

    if (rename(argv[2], path) != 0) {
        perror("rename");
        return 1;
    }
    if (slangpack_reloader_reload(reloader, &reloaded, &previous, &error) !=
            SLANGPACK_ERROR_KIND_OK ||
        !reloaded || previous == NULL) {
        printf("the replaced file was not reloaded: %s\n", error.message);
        return 1;
    }
    for (size_t i = 0; i < slangpack_reloader_change_count(reloader); i++) {
        SlangpackKeyChange change;
        if (!slangpack_reloader_change(reloader, i, &change)) {
            return 1;
        }
        const char *kind = change.kind == SLANGPACK_CHANGE_KIND_ADDED     ? "added"
                           : change.kind == SLANGPACK_CHANGE_KIND_REMOVED ? "removed"
                           : change.kind == SLANGPACK_CHANGE_KIND_CODE    ? "code"
                           : change.kind == SLANGPACK_CHANGE_KIND_LAYOUT  ? "layout"
                                                                          : "?";
        printf("change %.*s %s\n", (int)change.key.len, change.key.ptr, kind);
    }
    SlangpackKeyChange none;
    if (slangpack_reloader_change(reloader, slangpack_reloader_change_count(reloader), &none)) {
        return 1;
    }
    printf("old %u new %u\n", buffer_size(previous, argv[4], argv[5]),
           buffer_size(slangpack_reloader_package(reloader), argv[4], argv[5]));
    slangpack_package_close(previous);

    if (rename(argv[3], path) != 0) {
        perror("rename");
        return 1;
    }
    SlangpackErrorKind kind = slangpack_reloader_reload(reloader, &reloaded, NULL, &error);
    printf("refused %d\n", kind != SLANGPACK_ERROR_KIND_OK && !reloaded);
    kind = slangpack_reloader_reload(reloader, &reloaded, NULL, &error);
    printf("kept %zu\n", kind == SLANGPACK_ERROR_KIND_OK && !reloaded
                             ? slangpack_package_entry_count(slangpack_reloader_package(reloader))
                             : (size_t)0);
    printf("generation %llu\n", (unsigned long long)slangpack_reloader_generation(reloader));
    if (slangpack_reloader_reload(NULL, &reloaded, NULL, &error) !=
        SLANGPACK_ERROR_KIND_INVALID_ARGUMENT) {
        return 1;
    }
    slangpack_reloader_close(reloader);
    slangpack_reloader_close(NULL);
    return 0;
}

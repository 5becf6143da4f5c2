package io.emq.migrate.cli;

public final class Main {
    public static void main(String[] args) {
    }
}

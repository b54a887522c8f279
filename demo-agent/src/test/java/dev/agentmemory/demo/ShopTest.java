package dev.agentmemory.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShopTest {

    @TempDir
    Path dir;

    @Test
    void should_create_one_exchange_and_count_both_calls_when_the_same_operation_is_sent_twice() {
        // given
        DemoClock clock = new DemoClock(Instant.parse("2024-10-19T09:00:00Z"));
        try (Shop shop = Shop.open(dir.resolve("shop"), clock)) {
            // when
            Shop.ExchangeResult first = shop.createExchange("op-1", "20241015", "white", "1 Road");
            Shop.ExchangeResult second = shop.createExchange("op-1", "20241015", "white", "1 Road");

            // then
            assertThat(first.created()).isTrue();
            assertThat(second.created()).isFalse();
            assertThat(second.order().id()).isEqualTo("20241015-X1");
            assertThat(shop.exchangesFor("20241015")).isEqualTo(1);
            assertThat(shop.calls("create-exchange")).isEqualTo(2);
        }
        // and the shop survives a reopen
        try (Shop shop = Shop.open(dir.resolve("shop"), clock)) {
            assertThat(shop.exchangeByOperation("op-1")).map(Shop.Order::color).contains("white");
        }
    }

    @Test
    void should_refuse_an_exchange_when_the_return_window_has_closed() {
        // the shop's data is dated from the day it is created (the scenario's day one); a month later
        DemoClock clock = new DemoClock(Instant.parse("2024-10-19T09:00:00Z"));
        try (Shop shop = Shop.open(dir.resolve("shop"), clock)) {
            clock.set(Instant.parse("2024-11-20T09:00:00Z"));
            assertThatThrownBy(() -> shop.createExchange("op-2", "20241015", "white", "1 Road"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("order 20241015 is outside its return window (ended 2024-11-11)");
            assertThat(shop.exchangesFor("20241015")).isZero();
        }
    }

    @Test
    void should_refuse_an_address_change_when_the_order_was_delivered() {
        try (Shop shop = Shop.open(dir.resolve("shop"), new DemoClock(Instant.parse("2024-10-19T09:00:00Z")))) {
            assertThatThrownBy(() -> shop.changeAddress("20241015", "2 Road"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("order 20241015 was already delivered; its address cannot change");
            assertThat(shop.order("20241015")).map(Shop.Order::address).contains("12 Garden Street, Riverton");
        }
    }

    @Test
    void should_return_the_newest_policy_version_when_a_new_one_is_published() {
        try (Shop shop = Shop.open(dir.resolve("shop"), new DemoClock(Instant.parse("2024-10-19T09:00:00Z")))) {
            assertThat(shop.policy("P17")).map(Shop.PolicyVersion::limit).contains(600);
            shop.publishP17Version2();
            assertThat(shop.policy("p17")).map(Shop.PolicyVersion::limit).contains(700);
        }
    }
}
